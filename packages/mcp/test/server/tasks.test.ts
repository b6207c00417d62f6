import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Toolset, tool, type ExecutionContext } from '@anytool/core';
import { MemoryStore, RedisStore, createMcpServer, mcpSession, serveMcp, type McpServerHandle } from '@anytool/mcp';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler } from '@modelcontextprotocol/server';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1HttpTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { servicesAvailable, startRedis } from '../fixtures/services';
import { ROOT, answerTaskCreation, requireBuilt, EXAMPLE_MAIN } from './helpers';
import { scaled } from '../../../core/test/helpers/time-scale';

// Long-running tools as MCP tasks (the io.modelcontextprotocol/tasks extension), served by serveMcp and
// called by the official v2 client over real HTTP (and stdio): a task tool answers a client that declares the
// extension with a task at once; the client polls tasks/get, answers questions with tasks/update, cancels
// with tasks/cancel. Clients without the extension get the plain call.
jest.setTimeout(scaled(30_000));

const TASKS = 'io.modelcontextprotocol/tasks';
const NAME = { type: 'object' as const, properties: { name: { type: 'string' as const } }, required: ['name'] };

/** A result schema that takes any object (the task methods are not in the SDK's typed method maps). */
const anyResult = { '~standard': { version: 1 as const, vendor: 'test', validate: (value: unknown) => ({ value: value as Record<string, unknown> }) } };

type Task = Record<string, unknown> & { taskId: string; status: string };

/** A result without the server's identity (every 2026-07-28 result carries it in `_meta`). */
function bare<T extends object>(result: T): Omit<T, '_meta'> {
  const { _meta: _identity, ...rest } = result as T & { _meta?: unknown };
  return rest;
}

/** Released by the test: a tool waits on it, so the test sees the task while it runs. */
class Gate {
  private release!: () => void;
  readonly opened = new Promise<void>((resolve) => (this.release = resolve));
  open(): void {
    this.release();
  }
}

function tools(gate: Gate, seen: { aborted: number }) {
  const slow = tool(
    async function slow({ label }: { label?: string }, context: ExecutionContext) {
      context.progress(1, 2, `half of ${label ?? 'it'} done`);
      context.signal?.addEventListener('abort', () => seen.aborted++, { once: true });
      await Promise.race([
        gate.opened,
        new Promise((_, reject) => context.signal?.addEventListener('abort', () => reject(new Error('aborted')), { once: true })),
      ]);
      return `finished ${label ?? 'it'}`;
    },
    {
      description: 'Works until released.',
      parameters: { type: 'object', properties: { label: { type: 'string' } } },
      context: { progress: true },
      task: true,
    },
  );
  const ask = tool(
    async function ask(_args: object, context: ExecutionContext) {
      const answer = await mcpSession(context)!.elicitInput({ message: 'Your name?', requestedSchema: NAME }, { inputKey: 'who' });
      return `hello ${String(answer.content?.['name'])}`;
    },
    { description: 'Asks a name.', parameters: { type: 'object', properties: {} }, context: true, task: true },
  );
  const roots = tool(
    async function roots(_args: object, context: ExecutionContext) {
      const { roots: list } = await mcpSession(context)!.listRoots();
      return `${list.length} roots`;
    },
    { description: 'Asks the roots.', parameters: { type: 'object', properties: {} }, context: true, task: true },
  );
  const plain = tool(
    function plain() {
      return 'plain';
    },
    { description: 'Never a task.', parameters: { type: 'object', properties: {} } },
  );
  return new Toolset([slow, ask, roots, plain]);
}

/**
 * An official v2 client of the 2026-07-28 era. The 2.4 client has no task results (it refuses an unknown
 * `resultType`), so a `CreateTaskResult` reaches the test as the JSON text of a plain result: the test reads
 * what the server sent, unchanged.
 */
async function modernClient(
  url: string,
  options: { tasks?: boolean; user?: string; name?: string } = {},
): Promise<{
  client: Client;
  call(name: string, args?: object): Promise<Task | { content: Array<{ text?: string }> }>;
  get(taskId: string): Promise<Task>;
  update(taskId: string, answers: object): Promise<Record<string, unknown>>;
  cancel(taskId: string): Promise<Record<string, unknown>>;
}> {
  const capabilities = { elicitation: {}, ...(options.tasks === false ? {} : { extensions: { [TASKS]: {} } }) };
  const client = new Client({ name: 'tasks-test', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } }, capabilities });
  // The SDK answers input_required rounds itself, through this handler.
  if (options.name !== undefined) client.setRequestHandler('elicitation/create', () => ({ action: 'accept', content: { name: options.name! } }));
  const transport = new StreamableHTTPClientTransport(new URL(url), options.user === undefined ? {} : { requestInit: { headers: { 'x-user': options.user } } });
  await client.connect(transport);
  answerTaskCreation(transport);
  return {
    client,
    async call(name, args = {}) {
      const result = (await client.request({ method: 'tools/call', params: { name, arguments: args } }, anyResult)) as { content: Array<{ text?: string }> };
      const text = result.content[0]?.text ?? '';
      return text.startsWith('{"created":') ? (JSON.parse(text) as { created: Task }).created : result;
    },
    get: (taskId) => client.request({ method: 'tasks/get', params: { taskId } }, anyResult) as Promise<Task>,
    update: (taskId, inputResponses) =>
      client.request({ method: 'tasks/update', params: { taskId, inputResponses } }, anyResult) as Promise<Record<string, unknown>>,
    cancel: (taskId) => client.request({ method: 'tasks/cancel', params: { taskId } }, anyResult) as Promise<Record<string, unknown>>,
  };
}

async function until(get: () => Promise<Task>, done: (task: Task) => boolean, ms = 10_000): Promise<Task> {
  const end = Date.now() + ms;
  for (;;) {
    const task = await get();
    if (done(task) || Date.now() > end) return task;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const terminal = (task: Task): boolean => ['completed', 'failed', 'cancelled'].includes(task.status);

describe('task tools over HTTP (one server)', () => {
  let gate: Gate;
  const seen = { aborted: 0 };
  let server: McpServerHandle;

  beforeEach(async () => {
    gate = new Gate();
    seen.aborted = 0;
    server = await serveMcp(tools(gate, seen), {
      transport: 'http',
      port: 0,
      taskPollIntervalMs: 50,
      clientIdentity: (req) => req.headers['x-user'] as string | undefined,
    });
  });
  afterEach(async () => {
    gate.open();
    await server.close();
  });

  it('answers with a task at once, shows progress, and inlines the result once done', async () => {
    const { client, call, get } = await modernClient(server.url!);
    try {
      const created = (await call('slow', { label: 'the report' })) as Task;
      expect(bare(created)).toEqual({
        resultType: 'task',
        taskId: expect.any(String),
        status: 'working',
        createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        lastUpdatedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        ttlMs: 3_600_000,
        pollIntervalMs: 50,
      });
      const working = await until(
        () => get(created.taskId),
        (task) => task.statusMessage !== undefined,
      );
      expect(working).toMatchObject({ status: 'working', statusMessage: 'half of the report done' });
      expect(working).not.toHaveProperty('result');
      gate.open();
      const done = await until(() => get(created.taskId), terminal);
      expect(done).toMatchObject({ status: 'completed', result: { content: [{ type: 'text', text: 'finished the report' }] } });
      // Kept until it expires: asking again gives the same result.
      expect((await get(created.taskId)).result).toEqual(done.result);
    } finally {
      await client.close();
    }
  });

  it('gives clients without the extension the plain call, and never shows them the task methods', async () => {
    gate.open();
    const { client, call } = await modernClient(server.url!, { tasks: false });
    try {
      expect(await call('slow', { label: 'x' })).toMatchObject({ content: [{ type: 'text', text: 'finished x' }] });
      await expect(client.request({ method: 'tasks/get', params: { taskId: 'whatever' } }, anyResult)).rejects.toMatchObject({ code: -32021 });
    } finally {
      await client.close();
    }
    // A 2025 client (initialize, sessions): the plain call as well.
    const legacy = new V1Client({ name: 'legacy', version: '1.0.0' });
    await legacy.connect(new V1HttpTransport(new URL(server.url!)));
    try {
      expect(await legacy.callTool({ name: 'slow', arguments: { label: 'y' } })).toMatchObject({ content: [{ type: 'text', text: 'finished y' }] });
    } finally {
      await legacy.close();
    }
  });

  it("makes the tool's question the task's input_required, and tasks/update answers it", async () => {
    const { client, call, get, update } = await modernClient(server.url!);
    try {
      const created = (await call('ask')) as Task;
      const asking = await until(
        () => get(created.taskId),
        (task) => task.status === 'input_required',
      );
      expect(asking.inputRequests).toEqual({ who: { method: 'elicitation/create', params: expect.objectContaining({ message: 'Your name?' }) } });
      // Unknown keys are ignored; the answer to the open question goes through.
      expect(bare(await update(created.taskId, { nobody: { action: 'accept', content: {} } }))).toEqual({});
      expect((await get(created.taskId)).status).toBe('input_required');
      await update(created.taskId, { who: { action: 'accept', content: { name: 'Ada' } } });
      const done = await until(() => get(created.taskId), terminal);
      expect(done).toMatchObject({ status: 'completed', result: { content: [{ type: 'text', text: 'hello Ada' }] } });
    } finally {
      await client.close();
    }
  });

  it("cancels: the tool's signal aborts and the task is cancelled", async () => {
    const { client, call, get, cancel } = await modernClient(server.url!);
    try {
      const created = (await call('slow')) as Task;
      expect(bare(await cancel(created.taskId))).toEqual({});
      expect(await until(() => get(created.taskId), terminal)).toMatchObject({ status: 'cancelled' });
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(seen.aborted).toBe(1);
      // Cancelling again, or an unknown task, is acknowledged all the same.
      expect(bare(await cancel(created.taskId))).toEqual({});
      expect(bare(await cancel('no-such-task'))).toEqual({});
    } finally {
      await client.close();
    }
  });

  it('fails the task with the protocol error when the tool asks what the client cannot give', async () => {
    const { client, call, get } = await modernClient(server.url!);
    try {
      const created = (await call('roots')) as Task;
      const done = await until(() => get(created.taskId), terminal);
      expect(done).toMatchObject({ status: 'failed', error: { code: -32021, message: expect.stringContaining('roots') } });
      expect(done).not.toHaveProperty('result');
    } finally {
      await client.close();
    }
  });

  it('binds a task to its caller: to anyone else it is as unknown as a task that never was', async () => {
    const ada = await modernClient(server.url!, { user: 'ada' });
    const bob = await modernClient(server.url!, { user: 'bob' });
    try {
      const created = (await ada.call('slow')) as Task;
      const stranger = await bob.get(created.taskId).catch((error: { code: number; message: string }) => ({ code: error.code, message: error.message }));
      const unknown = await bob.get('no-such-task').catch((error: { code: number; message: string }) => ({ code: error.code, message: error.message }));
      expect(stranger).toEqual(unknown);
      expect(stranger).toMatchObject({ code: -32602 });
      // Bob cannot cancel it either.
      await bob.cancel(created.taskId);
      expect((await ada.get(created.taskId)).status).toBe('working');
    } finally {
      gate.open();
      await ada.client.close();
      await bob.client.close();
    }
  });
});

/** Tools that ask in the request first, then become a task (`deferTask`). */
function deferredTools(gate: Gate, seen: { started: number; aborted: number; becameTask: boolean[] }): Toolset {
  const signup = tool(
    async function signup(_args: object, context: ExecutionContext) {
      seen.started++;
      const session = mcpSession(context)!;
      const answer = await session.elicitInput({ message: 'Your name?', requestedSchema: NAME }, { inputKey: 'who' });
      const name = String(answer.content?.['name']);
      seen.becameTask.push(await session.startTask());
      // Asking again is a no-op: the call is a task already.
      seen.becameTask.push(await session.startTask());
      context.signal?.addEventListener('abort', () => seen.aborted++, { once: true });
      context.progress(1, 2, `setting up ${name}`);
      await Promise.race([
        gate.opened,
        new Promise((_, reject) => context.signal?.addEventListener('abort', () => reject(new Error('aborted')), { once: true })),
      ]);
      const confirm = await session.elicitInput({ message: `Sign up ${name}?`, requestedSchema: NAME }, { inputKey: 'confirm' });
      return `signed up ${name} as ${String(confirm.content?.['name'])}`;
    },
    { description: 'Signs up.', parameters: { type: 'object', properties: {} }, context: { progress: true }, task: 'required', deferTask: true },
  );
  return new Toolset([signup]);
}

describe('a task tool that asks in the request first (deferTask)', () => {
  let gate: Gate;
  const seen = { started: 0, aborted: 0, becameTask: [] as boolean[] };
  let server: McpServerHandle;

  beforeEach(async () => {
    gate = new Gate();
    Object.assign(seen, { started: 0, aborted: 0, becameTask: [] });
    server = await serveMcp(deferredTools(gate, seen), { transport: 'http', port: 0, taskPollIntervalMs: 50 });
  });
  afterEach(async () => {
    gate.open();
    await server.close();
  });

  it('answers the round after its question with the task, and runs the rest as the task', async () => {
    const { client, call, get, update } = await modernClient(server.url!, { name: 'Ada' });
    try {
      const created = (await call('signup')) as Task;
      expect(created).toMatchObject({ resultType: 'task', status: 'working', taskId: expect.any(String) });
      expect(created).not.toHaveProperty('requestState');
      expect(created).not.toHaveProperty('inputRequests');
      expect(seen.becameTask).toEqual([true, true]);
      // Its progress is the task's status message; its next question the task's input_required.
      expect(
        await until(
          () => get(created.taskId),
          (task) => task.statusMessage !== undefined,
        ),
      ).toMatchObject({ status: 'working', statusMessage: 'setting up Ada' });
      gate.open();
      const asking = await until(
        () => get(created.taskId),
        (task) => task.status === 'input_required',
      );
      expect(Object.keys(asking.inputRequests as object)).toEqual(['confirm']);
      await update(created.taskId, { confirm: { action: 'accept', content: { name: 'ada@example.org' } } });
      expect(await until(() => get(created.taskId), terminal)).toMatchObject({
        status: 'completed',
        result: { content: [{ type: 'text', text: 'signed up Ada as ada@example.org' }] },
      });
      expect(seen.started).toBe(1);
    } finally {
      await client.close();
    }
  });

  it("cancels: tasks/cancel aborts the tool's signal", async () => {
    const { client, call, get, cancel } = await modernClient(server.url!, { name: 'Bo' });
    try {
      const created = (await call('signup')) as Task;
      await cancel(created.taskId);
      expect(await until(() => get(created.taskId), terminal)).toMatchObject({ status: 'cancelled' });
      await until(
        async () => ({ taskId: '', status: seen.aborted === 1 ? 'done' : 'waiting' }),
        (task) => task.status === 'done',
        5000,
      );
      expect(seen.aborted).toBe(1);
    } finally {
      await client.close();
    }
  });

  it('refuses a client without the extension before the tool runs, when the tool requires tasks (-32021)', async () => {
    const { client, call } = await modernClient(server.url!, { name: 'Cy', tasks: false });
    try {
      await expect(call('signup')).rejects.toMatchObject({ code: -32021 });
      expect(seen.started).toBe(0);
    } finally {
      await client.close();
    }
  });
});

describe('two servers on one store', () => {
  it('answers tasks/get, tasks/update and tasks/cancel through either, whichever runs the tool', async () => {
    const store = new MemoryStore();
    const gate = new Gate();
    const seen = { aborted: 0 };
    const toolset = (): Toolset => tools(gate, seen);
    const one = await serveMcp(toolset(), { transport: 'http', port: 0, store, taskPollIntervalMs: 50 });
    const two = await serveMcp(toolset(), { transport: 'http', port: 0, store, taskPollIntervalMs: 50 });
    const a = await modernClient(one.url!);
    const b = await modernClient(two.url!);
    try {
      // A question asked on one, answered through the other.
      const asked = (await a.call('ask')) as Task;
      await until(
        () => b.get(asked.taskId),
        (task) => task.status === 'input_required',
      );
      await b.update(asked.taskId, { who: { action: 'accept', content: { name: 'Grace' } } });
      expect(await until(() => b.get(asked.taskId), terminal)).toMatchObject({ status: 'completed', result: { content: [{ text: 'hello Grace' }] } });
      // A cancel through the other reaches the tool.
      const running = (await a.call('slow')) as Task;
      await b.cancel(running.taskId);
      expect(await until(() => a.get(running.taskId), terminal)).toMatchObject({ status: 'cancelled' });
      await until(
        async () => ({ taskId: '', status: seen.aborted === 1 ? 'done' : 'waiting' }),
        (task) => task.status === 'done',
        2000,
      );
      expect(seen.aborted).toBe(1);
    } finally {
      gate.open();
      await a.client.close();
      await b.client.close();
      await one.close();
      await two.close();
      await store.close();
    }
  });
});

(servicesAvailable('redis-server') ? describe : describe.skip)('a deferTask tool on two servers sharing Redis', () => {
  it('asks through the server its rounds reach, then its task is polled, answered and finished through the other', async () => {
    const redis = await startRedis();
    const stores = [new RedisStore({ url: redis.url }), new RedisStore({ url: redis.url })];
    const gate = new Gate();
    gate.open();
    const seen = { started: 0, aborted: 0, becameTask: [] as boolean[] };
    const [one, two] = await Promise.all(
      stores.map((store) => serveMcp(deferredTools(gate, seen), { transport: 'http', port: 0, store, taskPollIntervalMs: 50 })),
    );
    const a = await modernClient(one!.url!, { name: 'Lin' });
    const b = await modernClient(two!.url!);
    try {
      const created = (await a.call('signup')) as Task;
      expect(seen.becameTask).toEqual([true, true]);
      await until(
        () => b.get(created.taskId),
        (task) => task.status === 'input_required',
      );
      await b.update(created.taskId, { confirm: { action: 'accept', content: { name: 'lin@example.org' } } });
      expect(await until(() => b.get(created.taskId), terminal)).toMatchObject({
        status: 'completed',
        result: { content: [{ text: 'signed up Lin as lin@example.org' }] },
      });
    } finally {
      await a.client.close();
      await b.client.close();
      await one!.close();
      await two!.close();
      await Promise.all(stores.map((store) => store.close()));
      await redis.stop();
    }
  });
});

describe("createMcpServer as the factory of the SDK's stateless handler", () => {
  it('finds a task again from the next request, though each request gets a new server instance', async () => {
    const gate = new Gate();
    // One toolset for every request: its tasks live with it.
    const toolset = tools(gate, { aborted: 0 });
    const shared = createMcpHandler(() => createMcpServer(toolset));
    const serve = toNodeHandler(shared);
    const http = createServer((req, res) => void serve(req as typeof req & { method: string; url: string }, res));
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    const { client, call, get } = await modernClient(`http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`);
    try {
      const created = (await call('slow', { label: 'stateless' })) as Task;
      expect((await get(created.taskId)).status).toBe('working');
      gate.open();
      expect(await until(() => get(created.taskId), terminal)).toMatchObject({ status: 'completed', result: { content: [{ text: 'finished stateless' }] } });
    } finally {
      await client.close();
      await shared.close();
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    }
  });
});

describe('task tools over stdio', () => {
  beforeAll(() => requireBuilt(EXAMPLE_MAIN));

  it('serves tasks to a 2026-07-28 client that declares the extension', async () => {
    const client = new Client(
      { name: 'tasks-stdio', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } }, capabilities: { extensions: { [TASKS]: {} } } },
    );
    const transport = new StdioClientTransport({ command: process.execPath, args: [EXAMPLE_MAIN], cwd: ROOT, stderr: 'pipe' });
    await client.connect(transport);
    try {
      const deliver = transport.onmessage!;
      let created: Task | undefined;
      transport.onmessage = (message) => {
        const result = (message as { result?: Task }).result;
        if (result?.['resultType'] !== 'task') return deliver(message);
        created = result;
        deliver({ ...message, result: { resultType: 'complete', content: [] } } as typeof message);
      };
      await client.request({ method: 'tools/call', params: { name: 'slow_compute', arguments: { seconds: 1, label: 'stdio' } } }, anyResult);
      expect(created).toMatchObject({ resultType: 'task', status: 'working' });
      const done = await until(() => client.request({ method: 'tasks/get', params: { taskId: created!.taskId } }, anyResult) as Promise<Task>, terminal);
      expect(done).toMatchObject({ status: 'completed', result: { content: [{ type: 'text', text: 'Computed stdio in 1 s' }] } });
    } finally {
      await client.close();
    }
  });
});
