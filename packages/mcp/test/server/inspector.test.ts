import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EXAMPLE_TOOLS, ROOT, requireBuilt, startHttpChild, stopChild } from './helpers';

// The MCP Inspector's CLI (it needs Node 22, which npx fetches) against `anytool serve`, over stdio and HTTP, in
// each protocol era it can ask for: `tools/list --strict` reports every tool-schema portability problem and exits
// 6 on an error-severity one; `tools/call` calls the example's echo tool.
const INSPECTOR = '@modelcontextprotocol/inspector@2.12.0';
const ANYTOOL = join(ROOT, 'packages', 'schema', 'bin', 'anytool.mjs');
const ERAS = ['legacy', 'modern', 'auto'] as const;

function run(command: string, args: string[], cwd: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd, maxBuffer: 64 * 1024 * 1024, timeout: 280_000, env: { ...process.env, NO_COLOR: '1' } }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
      resolve({ code, output: `${stdout}\n${stderr}` });
    });
  });
}

describe('the MCP Inspector CLI against anytool serve', () => {
  beforeAll(() => requireBuilt(ANYTOOL, EXAMPLE_TOOLS));

  it('lists the tools with --strict (no portability problem) and calls one, over stdio and HTTP, in every era', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'anytool-inspector-'));
    const server = await startHttpChild([ANYTOOL, 'serve', EXAMPLE_TOOLS, '--http', '--port', '0']);
    try {
      const targets = { stdio: `--cwd ${ROOT} node ${ANYTOOL} serve ${EXAMPLE_TOOLS}`, http: server.url };
      // One npx (and one Node 22) for every run; each run's exit code goes to a file of its own.
      const script = Object.entries(targets)
        .flatMap(([transport, target]) =>
          ERAS.flatMap((era) => [
            `mcp-inspector --cli --strict --quiet --protocol-era ${era} ${target} --method tools/list > list-${transport}-${era}.json 2> strict-${transport}-${era}.txt; echo $? > list-${transport}-${era}.rc`,
            `mcp-inspector --cli --quiet --format json --protocol-era ${era} ${target} --method tools/call --tool-name echo --tool-arg text=hi > call-${transport}-${era}.json 2>&1; echo $? > call-${transport}-${era}.rc`,
          ]),
        )
        .join('; ');
      const npx = process.platform === 'win32' ? 'npx.cmd' : 'npx';
      const { output } = await run(npx, ['-y', '-p', 'node@22', '-p', INSPECTOR, '-c', script], dir);

      const read = (file: string): string => {
        try {
          return readFileSync(join(dir, file), 'utf8').trim();
        } catch {
          return `(no ${file}; npx said: ${output.slice(-1500)})`;
        }
      };
      const seen: Record<string, unknown> = {};
      const want: Record<string, unknown> = {};
      for (const transport of Object.keys(targets)) {
        for (const era of ERAS) {
          const cell = `${transport} ${era}`;
          const list = read(`list-${transport}-${era}.json`);
          seen[cell] = {
            list: read(`list-${transport}-${era}.rc`),
            strict: read(`strict-${transport}-${era}.txt`),
            listsEcho: list.includes('"echo"') && list.includes('"test_input_required_result_elicitation"'),
            call: read(`call-${transport}-${era}.rc`),
            echoed: /"text":\s*"hi"/.test(read(`call-${transport}-${era}.json`)) ? 'hi' : read(`call-${transport}-${era}.json`).slice(0, 500),
          };
          want[cell] = { list: '0', strict: '', listsEcho: true, call: '0', echoed: 'hi' };
        }
      }
      expect(seen).toEqual(want);
    } finally {
      expect(await stopChild(server.child, server.exited)).toBe(0);
      rmSync(dir, { recursive: true, force: true });
    }
  }, 300_000);
});
