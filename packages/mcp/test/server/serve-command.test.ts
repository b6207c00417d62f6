import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { BaseTool, ErrorCode, Tool, Toolset, tool, type ExecutionContext } from '@anytool/core';
import { toolsetFromModule } from '@anytool/mcp';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { EXAMPLE_TOOLS, MCP_DIST, ROOT, httpClient, requireBuilt, startHttpChild, stopChild } from './helpers';

// Child processes and real servers: generous time on a loaded machine (nothing here asserts timing).
jest.setTimeout(60_000);

// `anytool serve` as the docs tell users to run it (docs/mcp-server.md), after `npm run build`:
//   npx anytool serve examples/dist/mcp-server/tools.js [--http --port N]
const ANYTOOL = join(ROOT, 'packages', 'schema', 'bin', 'anytool.mjs');
const MODULE = 'examples/dist/mcp-server/tools.js';
const EXPECTED_TOOLS = 20;

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
      expect(await client.callTool({ name: 'test_simple_text', arguments: {} })).toEqual({ content: [{ type: 'text', text: 'This is a simple text response for testing.' }] });
      expect((await client.callTool({ name: 'get_weather', arguments: { city: 'Oslo' } })).structuredContent).toEqual({ city: 'Oslo', temperatureC: 28, conditions: 'sunny' });
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

  it('explains what is wrong, with exit code 1, for bad arguments and modules it cannot serve', async () => {
    const unknown = await runToEnd([ANYTOOL, 'serve', MODULE, '--bogus']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('anytool serve: unknown option --bogus');
    expect(unknown.stderr).toContain('Usage: anytool serve <module.js> [options]');

    const typescript = await runToEnd([ANYTOOL, 'serve', 'examples/mcp-server/tools.ts']);
    expect(typescript.code).toBe(1);
    expect(typescript.stderr).toContain('build TypeScript to JavaScript first (npm run build) and serve the .js');

    const missing = await runToEnd([ANYTOOL, 'serve', 'examples/dist/nowhere.js']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('check the path (relative to the current directory)');

    const noTools = await runToEnd([ANYTOOL, 'serve', 'examples/dist/mcp-server/main.js', '--export', 'nothing']);
    expect(noTools.code).toBe(1);
    expect(noTools.stderr).toContain('has no export "nothing"');

    const help = await runToEnd([ANYTOOL, 'serve', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('--http');
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

class Clock {
  @Tool({ description: 'The time.', parameters: { type: 'object', properties: {} } })
  now(): string {
    return 'noon';
  }
}

class Echo extends BaseTool<{ text: string }> {
  constructor() {
    super({ name: 'echo', description: 'Echoes.', parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } });
  }

  execute(_context: ExecutionContext, { text }: { text: string }): string {
    return text;
  }
}

describe('toolsetFromModule: what a module exports becomes the served toolset', () => {
  const add = tool(({ a, b }: { a: number; b: number }) => a + b, { name: 'add', description: 'Adds.', parameters: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] } });

  it('takes tools, decorated instances and arrays, and skips everything else', () => {
    const toolset = toolsetFromModule({ clock: new Clock(), echo: new Echo(), more: [add], Clock, helper: () => 1, VERSION: '1.0', config: { a: 1 } });
    expect(toolset.names.sort()).toEqual(['add', 'echo', 'now']);
  });

  it('serves only the Toolsets when the module exports one (it usually holds the other exports)', () => {
    const echo = new Echo();
    const toolset = new Toolset(echo, add);
    expect(toolsetFromModule({ echo, add, toolset })).toBe(toolset);
  });

  it('serves only the named exports when asked', () => {
    expect(toolsetFromModule({ clock: new Clock(), echo: new Echo() }, ['echo']).names).toEqual(['echo']);
  });

  it('refuses a module with no tools, or a named export that is missing or holds none, naming the exports', () => {
    expect(() => toolsetFromModule({ Clock, helper: () => 1 }, [], 'tools.js')).toThrow(expect.objectContaining({ code: ErrorCode.InvalidOptions, message: expect.stringContaining('tools.js exports no tools (it exports: Clock, helper); export tools, instances of classes with @Tool methods (not the classes)') }));
    expect(() => toolsetFromModule({ echo: new Echo() }, ['nope'], 'tools.js')).toThrow('tools.js has no export "nope" (it exports: echo)');
    expect(() => toolsetFromModule({ Clock }, ['Clock'], 'tools.js')).toThrow('export "Clock" of tools.js holds no tools');
  });
});
