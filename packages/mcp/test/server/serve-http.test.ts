import { ErrorCode, ExecutionContext, Tool, Toolset, imageResult, resultText, tool, type ToolResult } from '@anytool/core';
import { McpToolset, MemoryEventStore, mcpSession, serveMcp, type McpServerHandle } from '@anytool/mcp';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  CallToolResultSchema,
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  LoggingMessageNotificationSchema,
  McpError,
  ToolListChangedNotificationSchema,
  type LoggingMessageNotification,
  type Progress,
} from '@modelcontextprotocol/sdk/types.js';
import { RED_PIXEL_PNG } from '../../../../examples/mcp-server/conformance-tools';
import { httpClient, rawRequest, waitFor } from './helpers';
import { scaled } from '../../../core/test/helpers/time-scale';

// Child processes and real servers: generous time on a loaded machine (nothing here asserts timing).
jest.setTimeout(scaled(60_000));

interface Weather {
  city: string;
  temperatureC: number;
  conditions: 'sunny' | 'cloudy' | 'rain';
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A decorated class like examples/mcp-server/demo-tools.ts (which gets its schemas from `anytool build`;
 * this project's tests compile without it, so the schemas are given here).
 */
class DemoTools {
  readonly cancelled: string[] = [];

  @Tool({
    name: 'get_weather',
    title: 'Weather',
    description: 'The current weather in a city.',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    outputSchema: {
      type: 'object',
      properties: { city: { type: 'string' }, temperatureC: { type: 'number' }, conditions: { type: 'string', enum: ['sunny', 'cloudy', 'rain'] } },
      required: ['city', 'temperatureC', 'conditions'],
    },
    annotations: { readOnly: true, openWorld: true },
  })
  getWeather({ city }: { city: string }): Weather {
    const temperatureC = (city.length * 7) % 30;
    return { city, temperatureC, conditions: temperatureC > 20 ? 'sunny' : temperatureC > 10 ? 'cloudy' : 'rain' };
  }

  @Tool({ name: 'red_pixel', description: 'A 1x1 red PNG image.', parameters: { type: 'object', properties: {} } })
  redPixel(): ToolResult {
    return imageResult(RED_PIXEL_PNG);
  }

  @Tool({
    name: 'count_slowly',
    description: 'Counts, reporting progress.',
    parameters: { type: 'object', properties: { to: { type: 'integer' }, stepMs: { type: 'integer' } }, required: ['to'] },
    context: { progress: true },
  })
  async countSlowly({ to, stepMs = 10 }: { to: number; stepMs?: number }, context: ExecutionContext): Promise<string> {
    for (let i = 1; i <= to; i++) {
      await sleep(stepMs);
      context.progress(i, to, `counted ${i}`);
    }
    return `counted to ${to}`;
  }

  @Tool({
    name: 'long_task',
    description: 'Works until cancelled.',
    parameters: { type: 'object', properties: { seconds: { type: 'number' } } },
    context: true,
  })
  async longTask({ seconds = 30 }: { seconds?: number }, context: ExecutionContext): Promise<string> {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, seconds * 1000);
      context.signal!.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
    });
    if (context.signal!.aborted) this.cancelled.push(String(mcpSession(context)!.requestId));
    return 'done';
  }
}

/** Tools that talk back to the client through mcpSession(context). */
class Probe {
  started = 0;
  aborted = 0;

  @Tool({
    description: 'Logs one message at each level it is given.',
    parameters: { type: 'object', properties: { levels: { type: 'array', items: { type: 'string' } } }, required: ['levels'] },
    context: true,
  })
  async logAt({ levels }: { levels: Array<'debug' | 'info' | 'warning' | 'error'> }, context: ExecutionContext): Promise<string> {
    const sent: boolean[] = [];
    for (const level of levels) sent.push(await mcpSession(context)!.log(level, `a ${level} message`, 'probe'));
    return sent.map(String).join(',');
  }

  @Tool({
    description: "Asks the client's model.",
    parameters: { type: 'object', properties: { prompt: { type: 'string' } }, required: ['prompt'] },
    context: true,
  })
  async ask({ prompt }: { prompt: string }, context: ExecutionContext): Promise<string> {
    const reply = await mcpSession(context)!.createMessage({ messages: [{ role: 'user', content: { type: 'text', text: prompt } }], maxTokens: 10 });
    return `model said: ${reply.content.type === 'text' ? reply.content.text : '?'}`;
  }

  @Tool({ description: 'Asks the user for a name.', parameters: { type: 'object', properties: {} }, context: true })
  async askName(_args: object, context: ExecutionContext): Promise<string> {
    const answer = await mcpSession(context)!.elicitInput({
      message: 'Your name?',
      requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
    });
    return `${answer.action}: ${JSON.stringify(answer.content)}`;
  }

  @Tool({ description: 'Says who called it.', parameters: { type: 'object', properties: {} }, context: true })
  whoCalled(_args: object, context: ExecutionContext): string {
    const session = mcpSession(context);
    return session === undefined ? 'not served over MCP' : `${session.clientInfo?.name ?? '?'} in session ${session.sessionId ?? '-'}`;
  }

  @Tool({
    description: 'Adds two numbers.',
    parameters: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'], additionalProperties: false },
  })
  add({ a, b }: { a: number; b: number }): number {
    return a + b;
  }

  @Tool({ description: 'Always throws.', parameters: { type: 'object', properties: {} } })
  explode(): never {
    throw new Error('kaboom');
  }

  @Tool({ description: 'Waits for its signal, then reports it.', parameters: { type: 'object', properties: {} }, context: true })
  async waitForAbort(_args: object, context: ExecutionContext): Promise<string> {
    this.started++;
    await new Promise<void>((resolve) => context.signal!.addEventListener('abort', () => resolve(), { once: true }));
    this.aborted++;
    return 'aborted';
  }
}

describe('serveMcp over streamable HTTP, official SDK client', () => {
  let demo: DemoTools;
  let probe: Probe;
  let toolset: Toolset;
  let server: McpServerHandle;
  let client: Client;

  beforeAll(async () => {
    demo = new DemoTools();
    probe = new Probe();
    toolset = new Toolset(demo, probe);
    server = await serveMcp(toolset, { transport: 'http', port: 0, name: 'test-server', version: '9.9.9' });
    ({ client } = await httpClient(server.url!, { capabilities: { sampling: {}, elicitation: {} } }));
    client.setRequestHandler(CreateMessageRequestSchema, (request) => {
      const first = request.params.messages[0]!.content;
      const text = !Array.isArray(first) && first.type === 'text' ? first.text : '';
      return { role: 'assistant', content: { type: 'text', text: `echo ${text}` }, model: 'fake', stopReason: 'endTurn' };
    });
    client.setRequestHandler(ElicitRequestSchema, () => ({ action: 'accept', content: { name: 'Ada' } }));
  });

  afterAll(async () => {
    await client.close();
    await server.close();
  });

  it('binds 127.0.0.1 on a free port and says who it is', () => {
    expect(server.host).toBe('127.0.0.1');
    expect(server.port).toBeGreaterThan(0);
    expect(server.url).toBe(`http://127.0.0.1:${server.port}/mcp`);
    expect(client.getServerVersion()).toEqual({ name: 'test-server', version: '9.9.9' });
    expect(client.getServerCapabilities()).toMatchObject({ tools: { listChanged: true }, logging: {} });
  });

  it('lists every tool with its title, schemas and annotations as the toolset defines them', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(toolset.names);
    const weather = tools.find((t) => t.name === 'get_weather')!;
    expect(weather).toEqual({
      name: 'get_weather',
      title: 'Weather',
      description: 'The current weather in a city.',
      inputSchema: toolset.get('get_weather')!.definition.parameters,
      outputSchema: toolset.get('get_weather')!.definition.outputSchema,
      annotations: { title: 'Weather', readOnlyHint: true, openWorldHint: true },
    });
  });

  it('returns structured content that the client validates against the output schema', async () => {
    const result = await client.callTool({ name: 'get_weather', arguments: { city: 'Oslo' } });
    expect(result.isError).toBeUndefined();
    expect(result.structuredContent).toEqual(demo.getWeather({ city: 'Oslo' }));
    expect(JSON.parse((result.content as Array<{ text: string }>)[0]!.text)).toEqual(result.structuredContent);
  });

  it('returns images as image content', async () => {
    const result = await client.callTool({ name: 'red_pixel', arguments: {} });
    expect(result.content).toEqual([{ type: 'image', mimeType: 'image/png', data: RED_PIXEL_PNG.toString('base64') }]);
  });

  it('sends the progress a tool records as notifications/progress when the client asked for it', async () => {
    const seen: Progress[] = [];
    const result = await client.callTool({ name: 'count_slowly', arguments: { to: 4, stepMs: 40 } }, undefined, { onprogress: (p) => seen.push(p) });
    expect(resultTextOf(result)).toBe('counted to 4');
    // The SDK client drops a progress notification it reads in the same chunk as the response (see tool-server.ts).
    expect(seen.length).toBeGreaterThanOrEqual(3);
    expect(seen).toEqual([1, 2, 3, 4].map((i) => ({ progress: i, total: 4, message: `counted ${i}` })).slice(0, seen.length));
  });

  it('aborts the tool’s signal when the client cancels the request', async () => {
    const controller = new AbortController();
    const before = probe.started;
    const abortedBefore = probe.aborted;
    const call = client.callTool({ name: 'waitForAbort', arguments: {} }, undefined, { signal: controller.signal });
    await waitFor(() => probe.started > before, 10_000, 'the tool to start');
    controller.abort(new Error('user pressed stop'));
    await expect(call).rejects.toThrow('user pressed stop');
    await waitFor(() => probe.aborted > abortedBefore, 10_000, 'the tool to see its signal abort');

    // long_task records the request ids of calls whose signal aborted.
    const second = new AbortController();
    const long = client.callTool({ name: 'long_task', arguments: { seconds: 30 } }, undefined, { signal: second.signal });
    await new Promise((resolve) => setTimeout(resolve, 100));
    second.abort();
    await expect(long).rejects.toThrow();
    await waitFor(() => demo.cancelled.length === 1, 10_000, 'long_task to see its signal abort');
  });

  it('answers validation errors, unknown tools and exceptions as isError results, not protocol errors', async () => {
    const invalid = await client.callTool({ name: 'add', arguments: { a: 1, b: 'two' } });
    expect(invalid.isError).toBe(true);
    expect(resultTextOf(invalid)).toContain('/b: must be number');

    const unknown = await client.callTool({ name: 'nope', arguments: {} });
    expect(unknown.isError).toBe(true);
    expect(resultTextOf(unknown)).toContain('Unknown tool "nope"; the available tools are: get_weather');

    const thrown = await client.callTool({ name: 'explode', arguments: {} });
    expect(thrown).toEqual({ isError: true, content: [{ type: 'text', text: 'Tool "explode" failed: kaboom' }] });

    expect(await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } })).toEqual({ content: [{ type: 'text', text: '5' }] });
  });

  it('sends tool logs through MCP logging, filtered by the level the client set', async () => {
    const logs: LoggingMessageNotification['params'][] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params));
    await client.setLoggingLevel('warning');
    const result = await client.callTool({ name: 'logAt', arguments: { levels: ['debug', 'info', 'warning', 'error'] } });
    expect(resultTextOf(result)).toBe('false,false,true,true');
    expect(logs).toEqual([
      { level: 'warning', logger: 'probe', data: 'a warning message' },
      { level: 'error', logger: 'probe', data: 'a error message' },
    ]);
    await client.setLoggingLevel('debug');
  });

  it('lets a tool sample the client’s model and elicit input from the user', async () => {
    expect(resultTextOf(await client.callTool({ name: 'ask', arguments: { prompt: 'hi' } }))).toBe('model said: echo hi');
    expect(resultTextOf(await client.callTool({ name: 'askName', arguments: {} }))).toBe('accept: {"name":"Ada"}');
    expect(resultTextOf(await client.callTool({ name: 'whoCalled', arguments: {} }))).toMatch(/^sdk-test-client in session [0-9a-f-]{36}$/);
  });

  it('gives a tool no session outside an MCP server', async () => {
    expect(resultText(await toolset.invoke('whoCalled', {}, new ExecutionContext()))).toBe('not served over MCP');
  });

  it('turns a sampling request to a client without the capability into an isError result naming the capability', async () => {
    const { client: plain } = await httpClient(server.url!);
    try {
      const result = await plain.callTool({ name: 'ask', arguments: { prompt: 'hi' } });
      expect(result.isError).toBe(true);
      expect(resultTextOf(result)).toContain('needs the client\'s "sampling" capability');
    } finally {
      await plain.close();
    }
  });

  it('tells clients when tools are added or removed', async () => {
    let changes = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void changes++);
    const greet = tool(({ who }: { who: string }) => `hello ${who}`, {
      name: 'greet',
      description: 'Greets.',
      parameters: { type: 'object', properties: { who: { type: 'string' } }, required: ['who'] },
    });
    toolset.add(greet);
    await waitFor(() => changes === 1, 10_000, 'tools/list_changed after add');
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('greet');
    expect(resultTextOf(await client.callTool({ name: 'greet', arguments: { who: 'MCP' } }))).toBe('hello MCP');
    toolset.remove('greet');
    await waitFor(() => changes === 2, 10_000, 'tools/list_changed after remove');
    expect((await client.listTools()).tools.map((t) => t.name)).not.toContain('greet');
  });

  it('is reachable through this package’s own client (McpToolset) with output schemas, images, progress and cancellation', async () => {
    const mcp = await McpToolset.connect({ mcpServers: { served: { url: server.url!, progress: true } } });
    try {
      const agentSide = new Toolset(mcp);
      expect(agentSide.names).toEqual(toolset.names);
      expect(agentSide.get('get_weather')!.definition.outputSchema).toEqual(toolset.get('get_weather')!.definition.outputSchema);

      const context = new ExecutionContext();
      const weather = await agentSide.invoke('get_weather', { city: 'Bergen' }, context);
      expect(weather.structured).toEqual(demo.getWeather({ city: 'Bergen' }));
      const image = await agentSide.invoke('red_pixel', {}, context);
      expect(image.content).toEqual([{ type: 'image', mimeType: 'image/png', data: RED_PIXEL_PNG.toString('base64') }]);
      await agentSide.invoke('count_slowly', { to: 3, stepMs: 40 }, context);
      const progress = context.events.flatMap((e) => (e.type === 'progress' ? [e.progress] : []));
      expect(progress.length).toBeGreaterThanOrEqual(2);
      expect(progress).toEqual([1, 2, 3].slice(0, progress.length));

      const controller = new AbortController();
      const before = probe.started;
      const abortedBefore = probe.aborted;
      const call = agentSide.invoke('waitForAbort', {}, new ExecutionContext({ signal: controller.signal }));
      await waitFor(() => probe.started > before, 10_000, 'the tool to start');
      controller.abort();
      const aborted = await call;
      expect(aborted.isError).toBe(true);
      expect(aborted.error?.code).toBe(ErrorCode.Aborted);
      // The client sent notifications/cancelled: the tool on the server saw its signal abort.
      await waitFor(() => probe.aborted > abortedBefore, 10_000, 'the served tool to see its signal abort');
    } finally {
      await mcp.close();
    }
  });
});

function resultTextOf(result: unknown): string {
  const parsed = CallToolResultSchema.parse(result);
  return parsed.content.map((c) => (c.type === 'text' ? c.text : `[${c.type}]`)).join('\n');
}

describe('serveMcp over HTTP: pages, DNS-rebinding protection, sessions', () => {
  const many = Array.from({ length: 5 }, (_, i) => tool(() => i, { name: `t${i}`, description: `Tool ${i}.`, parameters: { type: 'object', properties: {} } }));

  it('pages tools/list and refuses a cursor it did not give out', async () => {
    const server = await serveMcp(many, { transport: 'http', port: 0, pageSize: 2 });
    const { client } = await httpClient(server.url!);
    try {
      const first = await client.listTools();
      expect(first.tools.map((t) => t.name)).toEqual(['t0', 't1']);
      const second = await client.listTools({ cursor: first.nextCursor! });
      const third = await client.listTools({ cursor: second.nextCursor! });
      expect([...second.tools, ...third.tools].map((t) => t.name)).toEqual(['t2', 't3', 't4']);
      expect(third.nextCursor).toBeUndefined();
      const bad = client.listTools({ cursor: 'bogus' });
      await expect(bad).rejects.toBeInstanceOf(McpError);
      await expect(bad).rejects.toMatchObject({ code: -32602 });
    } finally {
      await client.close();
      await server.close();
    }
  });

  it('refuses requests addressed to another host or from another origin with 403, and accepts localhost', async () => {
    const server = await serveMcp(many, { transport: 'http', port: 0 });
    const initialize = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });
    const post = (headers: Record<string, string>): Promise<{ status: number; body: string }> =>
      rawRequest(server.url!, 'POST', { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers }, initialize);
    try {
      const evilHost = await post({ host: 'evil.example.com' });
      expect(evilHost.status).toBe(403);
      expect(evilHost.body).toContain('DNS-rebinding');
      expect((await post({ host: `evil.example.com:${server.port}` })).status).toBe(403);
      expect((await post({ origin: 'http://evil.example.com' })).status).toBe(403);
      expect(server.sessionCount).toBe(0);
      const good = await post({ host: `localhost:${server.port}`, origin: `http://localhost:${server.port}` });
      expect(good.status).toBe(200);
      expect(server.sessionCount).toBe(1);
      expect((await post({ host: `[::1]:${server.port}` })).status).toBe(200);
    } finally {
      await server.close();
    }
    const open = await serveMcp(many, { transport: 'http', port: 0, dnsRebindingProtection: false });
    try {
      const res = await rawRequest(
        open.url!,
        'POST',
        { 'content-type': 'application/json', accept: 'application/json, text/event-stream', host: 'evil.example.com' },
        initialize,
      );
      expect(res.status).toBe(200);
    } finally {
      await open.close();
    }
  });

  it('answers requests without a session, with an unknown session or to another path with clear errors', async () => {
    const server = await serveMcp(many, { transport: 'http', port: 0 });
    const list = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    try {
      expect((await fetch(server.url!, { method: 'POST', headers, body: list })).status).toBe(400);
      expect((await fetch(server.url!, { method: 'POST', headers: { ...headers, 'mcp-session-id': 'nope' }, body: list })).status).toBe(404);
      expect((await fetch(server.url!.replace('/mcp', '/other'), { method: 'POST', headers, body: list })).status).toBe(404);
      expect((await fetch(server.url!, { method: 'POST', headers, body: '{not json' })).status).toBe(400);
      expect((await fetch(server.url!, { method: 'PUT', headers, body: list })).status).toBe(405);
    } finally {
      await server.close();
    }
  });

  it('cleans up a session when its client ends it, and every session (aborting calls in flight) on close()', async () => {
    let sawAbort = false;
    let started = false;
    const slow = tool(
      async (_args: object, context: ExecutionContext) => {
        started = true;
        await new Promise<void>((resolve) => context.signal!.addEventListener('abort', () => resolve(), { once: true }));
        sawAbort = true;
        return 'stopped';
      },
      { name: 'slow', description: 'Waits for its signal.', parameters: { type: 'object', properties: {} }, context: true },
    );
    const server = await serveMcp(slow, { transport: 'http', port: 0 });
    const a = await httpClient(server.url!);
    const b = await httpClient(server.url!);
    expect(server.sessionCount).toBe(2);
    await a.transport.terminateSession();
    await a.client.close();
    await waitFor(() => server.sessionCount === 1, 10_000, 'the ended session to be dropped');

    const call = b.client.callTool({ name: 'slow', arguments: {} });
    call.catch(() => undefined);
    await waitFor(() => started, 10_000, 'the slow tool to start');
    await server.close();
    expect(server.sessionCount).toBe(0);
    expect(sawAbort).toBe(true);
    await server.closed;
    await expect(fetch(server.url!)).rejects.toThrow();
    await b.client.close();
  });

  it('ends a session left idle (no request, no open stream) after sessionIdleTimeoutMs, and keeps one with an open stream', async () => {
    const server = await serveMcp(many, { transport: 'http', port: 0, sessionIdleTimeoutMs: 300 });
    try {
      // An SDK client keeps a GET stream open for server notifications: its session stays.
      const { client } = await httpClient(server.url!);
      const initialize = JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
      });
      const raw = await rawRequest(server.url!, 'POST', { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, initialize);
      expect(raw.status).toBe(200);
      expect(server.sessionCount).toBe(2);
      // The raw client vanished without ending its session.
      await waitFor(() => server.sessionCount === 1, 10_000, 'the idle session to be ended');
      expect((await client.listTools()).tools).toHaveLength(5);
      await client.close();
    } finally {
      await server.close();
    }
  });

  it('ends the sessions of clients that closed with a plain client.close() (no DELETE) once idle, and refuses sessions past maxSessions', async () => {
    const server = await serveMcp(many, { transport: 'http', port: 0, sessionIdleTimeoutMs: 200, maxSessions: 3 });
    try {
      for (let i = 0; i < 3; i++) {
        const { client } = await httpClient(server.url!);
        await client.callTool({ name: 't0', arguments: {} });
        await client.close(); // what most clients do: the SDK sends no DELETE here
      }
      await waitFor(() => server.sessionCount === 0, 10_000, 'the closed clients’ sessions to be ended');

      const kept = await Promise.all([0, 1, 2].map(() => httpClient(server.url!)));
      expect(server.sessionCount).toBe(3);
      const refused = await httpClient(server.url!).then(
        async (extra) => {
          await extra.client.close();
          return { code: 0, message: 'connected' };
        },
        (error: { code?: number; message: string }) => error,
      );
      expect(refused.code).toBe(503);
      expect(refused.message).toContain('Too many sessions');
      expect(refused.message).toContain('maxSessions');
      // The connected clients hold their streams open: the idle sweep leaves them alone.
      await sleep(600);
      expect(server.sessionCount).toBe(3);
      for (const { client } of kept) expect((await client.listTools()).tools).toHaveLength(5);
      await Promise.all(kept.map(({ client }) => client.close()));
    } finally {
      await server.close();
    }
  });

  it('with an event store, resumes a call whose stream the tool closed: the client reconnects and gets the result', async () => {
    let closed: boolean | undefined;
    const poll = tool(
      async (_args: object, context: ExecutionContext) => {
        context.progress(1, 2);
        closed = mcpSession(context)!.closeStream();
        await new Promise((resolve) => setTimeout(resolve, 300));
        context.progress(2, 2);
        return 'after the break';
      },
      { name: 'poll', description: 'Closes its stream, then answers.', parameters: { type: 'object', properties: {} }, context: { progress: true } },
    );
    const server = await serveMcp(poll, { transport: 'http', port: 0, eventStore: new MemoryEventStore(), retryIntervalMs: 20 });
    const { client } = await httpClient(server.url!);
    try {
      const result = await client.callTool({ name: 'poll', arguments: {} });
      expect(closed).toBe(true);
      expect(result.content).toEqual([{ type: 'text', text: 'after the break' }]);
    } finally {
      await client.close();
      await server.close();
    }
    // Without an event store there is nothing to resume from, so the stream stays open.
    const plain = await serveMcp(poll, { transport: 'http', port: 0 });
    const other = await httpClient(plain.url!);
    try {
      expect((await other.client.callTool({ name: 'poll', arguments: {} })).content).toEqual([{ type: 'text', text: 'after the break' }]);
      expect(closed).toBe(false);
    } finally {
      await other.client.close();
      await plain.close();
    }
  });

  it('refuses bad options with coded errors', async () => {
    await expect(serveMcp(many, { transport: 'http', port: 0, sessionIdleTimeoutMs: 0 })).rejects.toMatchObject({ code: ErrorCode.InvalidOptions });
    await expect(serveMcp(many, { transport: 'http', port: 0, maxSessions: 0 })).rejects.toMatchObject({
      code: ErrorCode.InvalidOptions,
      message: expect.stringContaining('maxSessions'),
    });
    await expect(serveMcp(many, { transport: 'http', port: 70_000 })).rejects.toMatchObject({ code: ErrorCode.InvalidOptions });
    await expect(serveMcp(many, { transport: 'carrier-pigeon' } as never)).rejects.toMatchObject({
      code: ErrorCode.InvalidOptions,
      message: expect.stringContaining('"stdio" or "http"'),
    });
  });
});
