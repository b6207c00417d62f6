import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ErrorCode } from '@anytool/core';
import { loadToolModule } from '@anytool/core/internal';
import { parseServeArgs } from '../../src/server/serve-command';
import { EXAMPLE_TOOLS, MCP_DIST, ROOT, httpClient, requireBuilt, startHttpChild, stopChild } from './helpers';
import { scaled } from '../../../core/test/helpers/time-scale';

// Child processes and real servers: generous time on a loaded machine (nothing here asserts timing).
jest.setTimeout(scaled(60_000));

// `anytool serve` as the docs tell users to run it (docs/mcp-server.md), after `npm run build`:
//   npx anytool serve examples/dist/mcp-server/tools.js [--http --port N]
const ANYTOOL = join(ROOT, 'packages', 'schema', 'bin', 'anytool.mjs');
const MODULE = 'examples/dist/mcp-server/tools.js';
const EXPECTED_TOOLS = 32;

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

describe('anytool serve <module>', () => {
  beforeAll(() => requireBuilt(ANYTOOL, MCP_DIST, EXAMPLE_TOOLS, join(ROOT, 'packages', 'schema', 'dist', 'esm', 'cli', 'main.js')));

  it('serves the example module over streamable HTTP and stops gracefully on SIGTERM', async () => {
    const server = await startHttpChild([ANYTOOL, 'serve', MODULE, '--http', '--port', '0']);
    const { client } = await httpClient(server.url).catch(async (error: unknown) => {
      await stopChild(server.child, server.exited);
      throw error;
    });
    try {
      expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
      expect(server.stderr()).toContain(`anytool serve: ${EXPECTED_TOOLS} tools from ${MODULE} at ${server.url}`);
      expect(client.getServerVersion()?.name).toBe('tools');
      const { tools } = await client.listTools();
      expect(tools).toHaveLength(EXPECTED_TOOLS);
      expect(await client.callTool({ name: 'test_simple_text', arguments: {} })).toEqual({
        content: [{ type: 'text', text: 'This is a simple text response for testing.' }],
      });
      expect((await client.callTool({ name: 'get_weather', arguments: { city: 'Oslo' } })).structuredContent).toEqual({
        city: 'Oslo',
        temperatureC: 28,
        conditions: 'sunny',
      });
      // A function tool (the bin loads the CommonJS build, which hands over to the ES build the module's tools come from).
      expect(await client.callTool({ name: 'echo', arguments: { text: 'hi' } })).toEqual({ content: [{ type: 'text', text: 'hi' }] });
    } finally {
      await client.close();
      expect(await stopChild(server.child, server.exited)).toBe(0);
    }
    expect(server.stderr()).toContain('anytool serve: stopped');
  });

  it('stops gracefully on SIGINT too, ending open sessions', async () => {
    const server = await startHttpChild([ANYTOOL, 'serve', MODULE, '--http', '--port', '0', '--name', 'interrupted']);
    try {
      const { client } = await httpClient(server.url);
      expect(client.getServerVersion()?.name).toBe('interrupted');
      server.child.kill('SIGINT');
      expect(await server.exited).toBe(0);
      expect(server.stderr()).toContain('anytool serve: stopped');
      await client.close();
    } finally {
      await stopChild(server.child, server.exited);
    }
  });

  it('serves over stdio to a client that starts it, and ends when the client goes away', async () => {
    const transport = new StdioClientTransport({ command: process.execPath, args: [ANYTOOL, 'serve', MODULE], cwd: ROOT, stderr: 'pipe' });
    const client = new Client({ name: 'stdio-client', version: '1.0.0' });
    await client.connect(transport);
    const pid = transport.pid!;
    try {
      const { tools } = await client.listTools();
      expect(tools).toHaveLength(EXPECTED_TOOLS);
      const image = await client.callTool({ name: 'test_image_content', arguments: {} });
      expect(image.content).toEqual([expect.objectContaining({ type: 'image', mimeType: 'image/png' })]);
    } finally {
      await client.close();
    }
    const until = Date.now() + 10_000;
    while (Date.now() < until && alive(pid)) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(alive(pid)).toBe(false);
  });

  it('explains what is wrong in one line, with exit code 2, for bad arguments and modules it cannot serve', async () => {
    const expectUsageError = (run: { code: number | null; stderr: string; stdout: string }, message: string): void => {
      expect({ code: run.code, stdout: run.stdout }).toEqual({ code: 2, stdout: '' });
      expect(run.stderr).toMatch(/^anytool serve: [^\n]*\n$/);
      expect(run.stderr).toContain(message);
    };
    expectUsageError(await runToEnd([ANYTOOL, 'serve', MODULE, '--bogus']), 'anytool serve: unknown option --bogus; run anytool serve --help for the usage');
    expectUsageError(await runToEnd([ANYTOOL, 'serve', MODULE, '--port', 'x']), '--port must be a number from 0 to 65535, got "x"');
    expectUsageError(await runToEnd([ANYTOOL, 'serve']), 'name the module to serve');
    expectUsageError(
      await runToEnd([ANYTOOL, 'serve', 'examples/mcp-server/tools.ts']),
      'build TypeScript to JavaScript first (anytool build) and pass the compiled .js file',
    );
    expectUsageError(await runToEnd([ANYTOOL, 'serve', 'examples/dist/nowhere.js']), 'cannot load examples/dist/nowhere.js: there is no such file');
    expectUsageError(
      await runToEnd([ANYTOOL, 'serve', join(scratch, 'no-tools.cjs'), '--export', 'nothing']),
      'no-tools.cjs has no export "nothing"; it exports helper (a function',
    );
    expectUsageError(
      await runToEnd([ANYTOOL, 'serve', join(scratch, 'no-tools.cjs')]),
      'no-tools.cjs exports no tools; it exports helper (a function: wrap it with tool() to make it a tool), LIMIT (a number); tools are',
    );

    expectUsageError(await runToEnd([ANYTOOL, 'serve', MODULE, '--store', 'redis://127.0.0.1:6379']), '--store applies to --http');
    expectUsageError(
      await runToEnd([ANYTOOL, 'serve', MODULE, '--http', '--store', 'http://user:pw@127.0.0.1:6379']),
      '--store takes a Redis URL (redis://host:port), got "http://127.0.0.1:6379"',
    );
    // Nothing listens on port 1: the start stops, naming where, without the password.
    const unreachable = await runToEnd([ANYTOOL, 'serve', MODULE, '--http', '--port', '0', '--store', 'redis://u:secret@127.0.0.1:1']);
    expectUsageError(unreachable, '--store: RedisStore: cannot reach Redis at redis://127.0.0.1:1');
    expect(unreachable.stderr).not.toContain('secret');

    const help = await runToEnd([ANYTOOL, 'serve', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('--http');
  });

  it('codes what it refuses: bad arguments are INVALID_USAGE, a module it cannot serve INVALID_TOOL_MODULE', async () => {
    expect(() => parseServeArgs([MODULE, '--bogus'])).toThrow(
      expect.objectContaining({ code: ErrorCode.InvalidUsage, message: expect.stringContaining('--help') }),
    );
    expect(() => parseServeArgs([])).toThrow(expect.objectContaining({ code: ErrorCode.InvalidUsage }));
    expect(parseServeArgs([MODULE, '--http', '--store', 'redis://127.0.0.1:6379', '--task-lease-ms', '2000'])?.taskLeaseMs).toBe(2000);
    expect(() => parseServeArgs([MODULE, '--http', '--task-lease-ms', '2000'])).toThrow(/--task-lease-ms applies to --store/);
    expect(parseServeArgs([MODULE, '--worker-only', '--store', 'redis://127.0.0.1:6379', '--task-concurrency', '2'])?.taskConcurrency).toBe(2);
    expect(() => parseServeArgs([MODULE, '--worker-only', '--store', 'redis://127.0.0.1:6379', '--task-concurrency', '0'])).toThrow(
      /--task-concurrency must be a whole number, at least 1, got "0"/,
    );
    expect(() => parseServeArgs([MODULE, '--http', '--store', 'redis://127.0.0.1:6379', '--task-lease-ms', '50'])).toThrow(
      /--task-lease-ms must be a whole number of milliseconds, at least 100, got "50"/,
    );
    expect(parseServeArgs([MODULE, '--http', '--task-answer-within-ms', '250'])?.taskAnswerWithinMs).toBe(250);
    expect(() => parseServeArgs([MODULE, '--http', '--task-answer-within-ms', 'soon'])).toThrow(
      /--task-answer-within-ms must be a whole number of milliseconds from 0 to 2147483647, got "soon"/,
    );
    expect(() => parseServeArgs([MODULE, '--worker-only', '--store', 'redis://127.0.0.1:6379', '--task-answer-within-ms', '250'])).toThrow(
      /--task-answer-within-ms applies to the instances that answer calls/,
    );
    await expect(loadToolModule('examples/dist/nowhere.js')).rejects.toMatchObject({ code: ErrorCode.InvalidToolModule });
  });
});

// Modules that print to stdout, at import and inside a tool call: over stdio, none of it may reach the protocol stream.
const LOGGING_CJS = `const { Toolset, tool } = require('@anytool/core');
console.log('logging.cjs: loading');
process.stdout.write('logging.cjs: a raw write\\n');
const t = tool(({ text }) => {
  console.log('echo called with', text);
  process.stdout.write('a raw write in the call\\n');
  return text;
}, { name: 'echo', description: 'Echoes.', parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } });
module.exports = { t, set: new Toolset(t) };
`;
const LOGGING_MJS = `import { tool } from '@anytool/core';
console.log('logging.mjs: loading');
export const shout = tool(async ({ text }) => {
  console.log('shout called with', text);
  console.info({ structured: 'logs too' });
  return text.toUpperCase();
}, { name: 'shout', description: 'Upper-cases.', parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } });
`;

let scratch: string;

beforeAll(() => {
  // Inside the repository, so the modules resolve @anytool/core by name.
  const base = join(ROOT, 'packages', 'mcp', '.tmp');
  mkdirSync(base, { recursive: true });
  scratch = mkdtempSync(join(base, 'serve-'));
  writeFileSync(join(scratch, 'logging.cjs'), LOGGING_CJS);
  writeFileSync(join(scratch, 'logging.mjs'), LOGGING_MJS);
  writeFileSync(join(scratch, 'no-tools.cjs'), 'module.exports = { helper() {}, LIMIT: 3 };\n');
});

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('anytool serve over stdio: the protocol stream stays clean', () => {
  it.each([
    [
      'a CommonJS module (module.exports = { t, set: new Toolset(t) })',
      'logging.cjs',
      'echo',
      ['logging.cjs: loading', 'logging.cjs: a raw write', 'echo called with hi', 'a raw write in the call'],
    ],
    ['an ES module', 'logging.mjs', 'shout', ['logging.mjs: loading', 'shout called with hi', "{ structured: 'logs too' }"]],
  ])('serves %s that writes to stdout; what it writes goes to stderr', async (_what, file, name, printed) => {
    const transport = new StdioClientTransport({ command: process.execPath, args: [ANYTOOL, 'serve', file], cwd: scratch, stderr: 'pipe' });
    let stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const client = new Client({ name: 'stdio-client', version: '1.0.0' });
    // A line on stdout that is not a JSON-RPC message reaches the client as an error.
    const protocolErrors: Error[] = [];
    client.onerror = (error) => protocolErrors.push(error);
    await client.connect(transport);
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual([name]);
      const result = await client.callTool({ name, arguments: { text: 'hi' } });
      expect(result.content).toEqual([{ type: 'text', text: name === 'shout' ? 'HI' : 'hi' }]);
    } finally {
      await client.close();
    }
    expect(protocolErrors).toEqual([]);
    for (const line of printed) expect(stderr).toContain(line);
    expect(stderr).toContain(`anytool serve: 1 tools from ${file} over stdio`);
  });
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
