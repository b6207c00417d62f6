import { PassThrough } from 'node:stream';
import { ErrorCode, ExecutionContext, Toolset, tool } from '@anytool/core';
import { McpToolset, serveMcp } from '@anytool/mcp';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Progress } from '@modelcontextprotocol/sdk/types.js';
import { RED_PIXEL_PNG } from '../../../../examples/mcp-server/conformance-tools';
import { EXAMPLE_MAIN, ROOT, requireBuilt } from './helpers';
import { scaled } from '../../../core/test/helpers/time-scale';

// Child processes and real servers: generous time on a loaded machine (nothing here asserts timing).
jest.setTimeout(scaled(60_000));

// The compiled example server (examples/dist, made by `npm run build`), started by the client as a child process.
describe('serveMcp over stdio: the example server, started by a client', () => {
  beforeAll(() => requireBuilt(EXAMPLE_MAIN));

  it('is listed and called by the official SDK client: output schemas, images, progress, cancellation', async () => {
    const transport = new StdioClientTransport({ command: process.execPath, args: [EXAMPLE_MAIN], cwd: ROOT, stderr: 'pipe' });
    const client = new Client({ name: 'sdk-stdio-client', version: '1.0.0' });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['test_simple_text', 'get_weather', 'red_pixel', 'count_slowly', 'long_task']));
      expect(tools.find((t) => t.name === 'get_weather')!.outputSchema).toMatchObject({ type: 'object', required: ['city', 'temperatureC', 'conditions'] });

      const weather = await client.callTool({ name: 'get_weather', arguments: { city: 'Oslo' } });
      expect(weather.structuredContent).toEqual({ city: 'Oslo', temperatureC: 28, conditions: 'sunny' });

      const image = await client.callTool({ name: 'red_pixel', arguments: {} });
      expect(image.content).toEqual([{ type: 'image', mimeType: 'image/png', data: RED_PIXEL_PNG.toString('base64') }]);

      const seen: Progress[] = [];
      // Steps 40 ms apart: each notification is read on its own even when the machine is busy (1 ms steps lost two of three once).
      await client.callTool({ name: 'count_slowly', arguments: { to: 3, stepMs: 40 } }, undefined, { onprogress: (p) => seen.push(p) });
      // The server writes its response a moment after the last notification; the SDK client drops a progress
      // notification that it reads in the same chunk as the response, so on a loaded machine the last one may be lost.
      expect(seen.length).toBeGreaterThanOrEqual(2);
      expect(seen.map((p) => [p.progress, p.total])).toEqual(
        [
          [1, 3],
          [2, 3],
          [3, 3],
        ].slice(0, seen.length),
      );

      const controller = new AbortController();
      const call = client.callTool({ name: 'long_task', arguments: { seconds: 30 } }, undefined, { signal: controller.signal });
      await new Promise((resolve) => setTimeout(resolve, 200));
      controller.abort();
      await expect(call).rejects.toThrow();
      // The tool in the server process saw its signal abort and recorded the request id.
      let cancelled: string[] = [];
      for (let i = 0; i < 100 && cancelled.length === 0; i++) {
        const result = await client.callTool({ name: 'cancelled_calls', arguments: {} });
        cancelled = (result.structuredContent as { requestIds: string[] }).requestIds;
        if (cancelled.length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(cancelled).toHaveLength(1);
    } finally {
      await client.close();
    }
  });

  it('is used through this package’s own client (McpToolset) like any other MCP server', async () => {
    const mcp = await McpToolset.connect({ mcpServers: { example: { command: process.execPath, args: [EXAMPLE_MAIN], cwd: ROOT, progress: true } } });
    try {
      const toolset = new Toolset(mcp);
      const context = new ExecutionContext();
      const weather = await toolset.invoke('get_weather', { city: 'Oslo' }, context);
      expect(weather.structured).toEqual({ city: 'Oslo', temperatureC: 28, conditions: 'sunny' });
      expect((await toolset.invoke('test_image_content', {}, context)).content[0]).toMatchObject({ type: 'image', mimeType: 'image/png' });
      await toolset.invoke('count_slowly', { to: 3, stepMs: 40 }, context);
      expect(context.events.filter((e) => e.type === 'progress').length).toBeGreaterThanOrEqual(2);

      const controller = new AbortController();
      const pending = toolset.invoke('long_task', { seconds: 30 }, new ExecutionContext({ signal: controller.signal }));
      setTimeout(() => controller.abort(), 200);
      expect((await pending).error?.code).toBe(ErrorCode.Aborted);
      let cancelled: string[] = [];
      for (let i = 0; i < 100 && cancelled.length === 0; i++) {
        cancelled = ((await toolset.invoke('cancelled_calls', {}, context)).structured as { requestIds: string[] }).requestIds;
        if (cancelled.length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(cancelled).toHaveLength(1);
    } finally {
      await mcp.close();
    }
  });
});

describe('serveMcp over stdio streams of your own', () => {
  it('answers newline-delimited JSON-RPC and stops when its input ends', async () => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const lines: Array<{ id?: number; result?: Record<string, unknown> }> = [];
    let buffered = '';
    stdout.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      let end: number;
      while ((end = buffered.indexOf('\n')) >= 0) {
        lines.push(JSON.parse(buffered.slice(0, end)) as { id?: number; result?: Record<string, unknown> });
        buffered = buffered.slice(end + 1);
      }
    });
    const hello = tool(() => 'hello', { name: 'hello', description: 'Says hello.', parameters: { type: 'object', properties: {} } });
    const server = await serveMcp(hello, { transport: 'stdio', stdin, stdout, name: 'streams' });
    expect(server.transport).toBe('stdio');
    expect(server.url).toBeUndefined();
    expect(server.sessionCount).toBe(1);
    const send = (message: object): boolean => stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
    send({ id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'lines', version: '1' } } });
    send({ method: 'notifications/initialized' });
    send({ id: 2, method: 'tools/call', params: { name: 'hello', arguments: {} } });
    const until = Date.now() + 10_000;
    while (lines.length < 2 && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(lines[0]!.result!['serverInfo']).toEqual({ name: 'streams', version: '0.1.0' });
    expect(lines[1]).toEqual({ jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: 'hello' }] } });
    stdin.end();
    await server.closed;
    expect(server.sessionCount).toBe(0);
  });
});
