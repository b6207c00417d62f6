import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './helpers';

// The MCP conformance suite's client scenarios against examples/mcp-client, a small client
// built with @anytool/mcp. The suite needs Node 22, which npx fetches (the first run downloads it).
const root = join(__dirname, '..', '..', '..', '..');
const example = join(root, 'examples', 'dist', 'mcp-client', 'main.js');
const SUITE = '@modelcontextprotocol/conformance@0.1.16';

jest.setTimeout(300_000);

/** What the client under test wrote to stderr (the suite saves it under results/), for a failure message. */
function clientStderr(cwd: string): string {
  const results = join(cwd, 'results');
  if (!existsSync(results)) return '';
  return readdirSync(results)
    .map((dir) => join(results, dir, 'stderr.txt'))
    .filter((file) => existsSync(file))
    .map((file) => readFileSync(file, 'utf8'))
    .join('\n');
}

function runScenario(scenario: string): Promise<{ code: number | null; output: string; stderr: string }> {
  const command = `conformance client --command "${process.execPath} ${example}" --scenario ${scenario}`;
  // Its results/ folder goes to a temp dir, not the checkout.
  const cwd = tempDir('conformance');
  return new Promise((resolve, reject) => {
    const child = spawn('npx', ['-y', '-p', 'node@22', '-p', SUITE, '-c', command], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output, stderr: code === 0 ? '' : clientStderr(cwd) }));
  });
}

describe('MCP conformance suite, client scenarios', () => {
  beforeAll(() => {
    // `npm test` builds first; a bare `jest` run builds the package and the examples here.
    if (!existsSync(example) || !existsSync(join(root, 'packages', 'mcp', 'dist', 'esm', 'index.js'))) {
      execFileSync(process.execPath, [join(root, 'scripts', 'build.mjs'), 'core', 'mcp'], { cwd: root, stdio: 'ignore' });
      execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', join(root, 'examples', 'tsconfig.build.json')], { cwd: root, stdio: 'ignore' });
    }
  });

  it.each(['initialize', 'tools_call', 'sse-retry'])('passes the %s scenario', async (scenario) => {
    const { code, output, stderr } = await runScenario(scenario);
    const summary = output.split('\n').filter((line) => /Passed: |OVERALL|Failed Checks|FAILURE/.test(line)).join('\n');
    expect({ code, summary, clientStderr: stderr }).toEqual({ code: 0, summary: expect.stringContaining('OVERALL: PASSED'), clientStderr: '' });
    expect(output).toMatch(/Passed: (\d+)\/\1, 0 failed/);
  });
});
