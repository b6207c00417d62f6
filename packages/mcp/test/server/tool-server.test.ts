import { ErrorCode, Toolset, errorResult, tool, toolResult, type ExecutionContext } from '@anytool/core';
import { createMcpServer, mcpSession, toCallToolResult } from '@anytool/mcp';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { LoggingMessageNotificationSchema, type LoggingMessageNotification } from '@modelcontextprotocol/sdk/types.js';
import { defaultAllowedHosts, rebindingProblem } from '../../src/server/host-check';

describe('toCallToolResult: a ToolResult as an MCP tools/call result', () => {
  it('maps every content kind', () => {
    const result = toolResult({
      content: [
        { type: 'text', text: 'hi' },
        { type: 'image', data: 'aW1n', mimeType: 'image/png' },
        { type: 'audio', data: 'YXVk', mimeType: 'audio/wav' },
        { type: 'resource', uri: 'test://text', mimeType: 'text/plain', text: 'inside' },
        { type: 'resource', uri: 'test://blob', blob: 'YmxvYg==' },
        { type: 'resource', uri: 'test://empty' },
        { type: 'resource_link', uri: 'file:///a.txt', name: 'a.txt', title: 'A', description: 'a file', mimeType: 'text/plain' },
      ],
      isError: false,
    });
    expect(toCallToolResult(result)).toEqual({
      content: [
        { type: 'text', text: 'hi' },
        { type: 'image', data: 'aW1n', mimeType: 'image/png' },
        { type: 'audio', data: 'YXVk', mimeType: 'audio/wav' },
        { type: 'resource', resource: { uri: 'test://text', mimeType: 'text/plain', text: 'inside' } },
        { type: 'resource', resource: { uri: 'test://blob', blob: 'YmxvYg==' } },
        { type: 'resource', resource: { uri: 'test://empty', text: '' } },
        { type: 'resource_link', uri: 'file:///a.txt', name: 'a.txt', title: 'A', description: 'a file', mimeType: 'text/plain' },
      ],
    });
  });

  it('sends structured content only for objects, and never on errors', () => {
    expect(toCallToolResult({ content: [], structured: { a: 1 }, isError: false })).toEqual({ content: [], structuredContent: { a: 1 } });
    expect(toCallToolResult({ content: [{ type: 'text', text: '[1]' }], structured: [1], isError: false })).toEqual({
      content: [{ type: 'text', text: '[1]' }],
    });
    expect(toCallToolResult({ content: [{ type: 'text', text: '3' }], structured: 3, isError: false })).toEqual({ content: [{ type: 'text', text: '3' }] });
    expect(toCallToolResult({ ...errorResult(ErrorCode.ToolFailed, 'no'), structured: { a: 1 } })).toEqual({
      content: [{ type: 'text', text: 'no' }],
      isError: true,
    });
  });
});

describe('DNS-rebinding check', () => {
  const hosts = defaultAllowedHosts('127.0.0.1');

  it('accepts loopback hosts on any port and refuses others', () => {
    expect(hosts).toEqual(['localhost', '127.0.0.1', '[::1]']);
    for (const host of ['localhost', '127.0.0.1:3000', '[::1]:8080', 'LOCALHOST:1']) expect(rebindingProblem(host, undefined, hosts, hosts)).toBeUndefined();
    expect(rebindingProblem('evil.example.com', undefined, hosts, hosts)).toContain('Host "evil.example.com" is not allowed');
    expect(rebindingProblem('127.0.0.1.evil.example.com', undefined, hosts, hosts)).toBeDefined();
    expect(rebindingProblem(undefined, undefined, hosts, hosts)).toBe('the request has no Host header');
  });

  it('checks the Origin header when there is one', () => {
    expect(rebindingProblem('localhost:3000', 'http://localhost:5173', hosts, hosts)).toBeUndefined();
    expect(rebindingProblem('localhost:3000', 'https://evil.example.com', hosts, hosts)).toContain('Origin "https://evil.example.com" is not allowed');
    expect(rebindingProblem('localhost:3000', 'null', hosts, hosts)).toBeDefined();
    expect(rebindingProblem('localhost:3000', 'https://evil.example.com', hosts, ['*'])).toBeUndefined();
  });

  it('off loopback accepts only the bind address itself, never localhost; a wildcard nothing by default', () => {
    expect(defaultAllowedHosts('192.168.1.20')).toEqual(['192.168.1.20']);
    expect(defaultAllowedHosts('0.0.0.0')).toEqual([]);
    expect(defaultAllowedHosts('::1')).toEqual(['localhost', '127.0.0.1', '[::1]']);
    expect(defaultAllowedHosts('127.0.0.2')).toEqual(['localhost', '127.0.0.1', '[::1]', '127.0.0.2']);
  });
});

describe('createMcpServer with a transport of your own', () => {
  const noisy = tool(
    async (_args: object, context: ExecutionContext) => {
      context.record({ type: 'error', code: 'UPSTREAM_DOWN', message: 'the weather service did not answer' });
      return String(await mcpSession(context)!.log('info', 'hello'));
    },
    { name: 'noisy', description: 'Records an error event and logs.', parameters: { type: 'object', properties: {} }, context: { events: 'record' } },
  );

  async function connect(logging: boolean): Promise<{ client: Client; logs: LoggingMessageNotification['params'][] }> {
    const server = createMcpServer(new Toolset(noisy), { logging, instructions: 'Use noisy.' });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: 'memory', version: '1' });
    const logs: LoggingMessageNotification['params'][] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params));
    await client.connect(clientSide);
    return { client, logs };
  }

  it('sends error events of a call as error log messages, and the tool’s own logs', async () => {
    const { client, logs } = await connect(true);
    expect(client.getInstructions()).toBe('Use noisy.');
    const result = await client.callTool({ name: 'noisy', arguments: {} });
    expect(result.content).toEqual([{ type: 'text', text: 'true' }]);
    expect(logs).toEqual([
      { level: 'error', logger: 'anytool', data: { code: 'UPSTREAM_DOWN', message: 'the weather service did not answer', tool: 'noisy' } },
      { level: 'info', data: 'hello' },
    ]);
    await client.close();
  });

  it('declares no logging capability and sends no logs when logging is off', async () => {
    const { client, logs } = await connect(false);
    expect(client.getServerCapabilities()?.logging).toBeUndefined();
    expect((await client.callTool({ name: 'noisy', arguments: {} })).content).toEqual([{ type: 'text', text: 'false' }]);
    expect(logs).toEqual([]);
    await client.close();
  });

  it('answers a tool that promised structured content and returned none with an isError result, not a failed call', async () => {
    const liar = tool(() => 'sunny', {
      name: 'liar',
      description: 'Says it returns an object.',
      parameters: { type: 'object', properties: {} },
      outputSchema: { type: 'object', properties: { sky: { type: 'string' } } },
    });
    const server = createMcpServer(liar);
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: 'memory', version: '1' });
    await client.connect(clientSide);
    await client.listTools();
    expect(await client.callTool({ name: 'liar', arguments: {} })).toEqual({
      isError: true,
      content: [{ type: 'text', text: 'Tool "liar" declares an output schema but returned no structured object; it returned: sunny' }],
    });
    await client.close();
  });

  it('refuses a page size that is not a positive integer', () => {
    expect(() => createMcpServer(new Toolset(noisy), { pageSize: 0 })).toThrow(expect.objectContaining({ code: ErrorCode.InvalidOptions }));
  });
});
