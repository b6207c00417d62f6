// `anytool-mcp`, the command of @anytool/mcp: serving without the build package
// (docs/mcp-server.md). Run as a user runs it, from the built package in a child process.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { EXAMPLE_TOOLS, MCP_DIST, ROOT, requireBuilt } from '../server/helpers';

jest.setTimeout(60_000);

const BIN = join(ROOT, 'packages', 'mcp', 'bin', 'anytool-mcp.mjs');
const ANYTOOL = join(ROOT, 'packages', 'schema', 'bin', 'anytool.mjs');
const MODULE = 'examples/dist/mcp-server/tools.js';

function runToEnd(args: string[]): Promise<{ code: number | null; stderr: string; stdout: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    let stdout = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.on('exit', (code) => resolve({ code, stderr, stdout }));
  });
}

async function toolNames(command: string): Promise<string[]> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [command, 'serve', MODULE], cwd: ROOT, stderr: 'pipe' });
  const client = new Client({ name: 'cli-test', version: '1.0.0' });
  await client.connect(transport);
  try {
    return (await client.listTools()).tools.map((tool) => tool.name).sort();
  } finally {
    await client.close();
  }
}

describe('anytool-mcp', () => {
  beforeAll(() => requireBuilt(BIN, MCP_DIST, EXAMPLE_TOOLS));

  it('serves a module over stdio, the same tools as `anytool serve`', async () => {
    const names = await toolNames(BIN);
    expect(names.length).toBeGreaterThan(10);
    expect(await toolNames(ANYTOOL)).toEqual(names);
  });

  it('prints its help, the help of serve under its own name, and its version', async () => {
    const help = await runToEnd([BIN, '--help']);
    expect([help.code, help.stdout.split('\n')[0]]).toEqual([0, 'Usage: anytool-mcp <command> [options]']);
    const serveHelp = await runToEnd([BIN, 'serve', '--help']);
    expect([serveHelp.code, serveHelp.stdout.split('\n')[0]]).toEqual([0, 'Usage: anytool-mcp serve <module.js> [options]']);
    const version = await runToEnd([BIN, '--version']);
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- the manifest, read as the bin reads it
    expect([version.code, version.stdout]).toEqual([0, `${(require('../../package.json') as { version: string }).version}\n`]);
  });

  it('says what is wrong in one line with exit code 2, naming itself', async () => {
    expect(await runToEnd([BIN])).toEqual(expect.objectContaining({ code: 2, stdout: '' }));
    expect(await runToEnd([BIN, 'build'])).toEqual({
      code: 2,
      stdout: '',
      stderr: 'anytool-mcp: unknown command "build"; the command is serve (anytool-mcp --help)\n',
    });
    expect(await runToEnd([BIN, 'serve', MODULE, '--bogus'])).toEqual({
      code: 2,
      stdout: '',
      stderr: 'anytool-mcp serve: unknown option --bogus; run anytool-mcp serve --help for the usage\n',
    });
    expect(await runToEnd([BIN, 'sevre'])).toEqual({
      code: 2,
      stdout: '',
      stderr: 'anytool-mcp: unknown command "sevre"; did you mean serve? (anytool-mcp --help)\n',
    });
    expect(await runToEnd([BIN, 'serve', MODULE, '--tokens'])).toEqual({
      code: 2,
      stdout: '',
      stderr: 'anytool-mcp serve: unknown option --tokens (did you mean --tokens-file?); run anytool-mcp serve --help for the usage\n',
    });
    const missing = await runToEnd([BIN, 'serve', 'examples/dist/nowhere.js']);
    expect([missing.code, missing.stderr]).toEqual([
      2,
      expect.stringMatching(/^anytool-mcp serve: [^\n]*cannot load examples\/dist\/nowhere\.js: there is no such file[^\n]*\n$/),
    ]);
  });
});
