// Calls a server turns into tasks (io.modelcontextprotocol/tasks, 2026-07-28 era): the client polls them to their
// end, answers their input requests, cancels them, and resumes them after restarts. The server is a real process
// (test/fixtures/tasks-server.mjs, on the official SDK) that keeps its tasks in a file and logs every task request.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { ErrorCode, ExecutionContext, Toolset, isAnytoolError, resultText, type RunProgressEvent, type ToolResultEvent } from '@anytool/core';
import { Agent, ScriptedModel, latestToolResults } from '@anytool/agent';
import { MemoryStore, McpConnection, McpToolset, type McpServerConfig } from '@anytool/mcp';
import { alive, connectForEachTest, tempDir, until, withConnections } from './helpers';
import { scaled } from '../../../core/test/helpers/time-scale';

jest.setTimeout(scaled(60_000));

const TASKS_SERVER = join(__dirname, '..', 'fixtures', 'tasks-server.mjs');

interface Logged {
  method: string;
  taskId: string;
  tool?: string;
  requestState?: string | null;
  expected?: string | null;
  pid?: number;
}

/** The task requests the server read (its file's log). */
function logOf(file: string): Logged[] {
  try {
    return (JSON.parse(readFileSync(file, 'utf8')) as { log: Logged[] }).log;
  } catch {
    return [];
  }
}

function stdio(file: string, env: Record<string, string> = {}): McpServerConfig {
  return { command: process.execPath, args: [TASKS_SERVER, 'stdio'], env: { TASKS_FILE: file, ...env } };
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

interface HttpServer {
  child: ChildProcessWithoutNullStreams;
  url: string;
  stop(): Promise<void>;
}

/** The fixture over streamable HTTP on 127.0.0.1, on `port` (any free one by default). */
async function startHttp(file: string, port = 0, env: Record<string, string> = {}): Promise<HttpServer> {
  const child = spawn(process.execPath, [TASKS_SERVER, 'http'], { env: { ...process.env, TASKS_FILE: file, PORT: String(port), ...env }, stdio: 'pipe' });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let stderr = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = /listening (http:\/\/\S+\/mcp)/.exec(stderr);
      if (match) resolve(match[1]!);
    });
    child.once('exit', (code) => reject(new Error(`the tasks server exited with ${String(code)}:\n${stderr}`)));
  });
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
  };
  return { child, url, stop };
}

const servers: HttpServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.stop()));
});
async function http(file: string, port = 0, env: Record<string, string> = {}): Promise<HttpServer> {
  const server = await startHttp(file, port, env);
  servers.push(server);
  return server;
}

// The tests that mostly wait on a task (seconds of it, or polls far apart) run side by side (`it.concurrent`), beside
// the others: each stops the servers it starts and closes what it connects itself (an afterEach would end those of
// tests still running).

/** For a test that runs beside others: `test` starts HTTP servers as `http` does; they are stopped at its end. */
async function withServers(test: (http: typeof startHttp) => Promise<void>): Promise<void> {
  const started: HttpServer[] = [];
  try {
    await test(async (...args) => {
      const server = await startHttp(...args);
      started.push(server);
      return server;
    });
  } finally {
    await Promise.all(started.map((server) => server.stop()));
  }
}

describe('a call the server turns into a task', () => {
  const connect = connectForEachTest();

  it.concurrent('is polled to its end over HTTP, outliving the per-call timeout, its status messages becoming progress', () =>
    withServers((http) =>
      withConnections(async (connect) => {
        const file = join(tempDir('tasks'), 'tasks.json');
        const server = await http(file);
        // Each request may take 3 s (room for a loaded machine); the task takes 5 s: a plain call would time out. Both
        // scale together, so the task outlives the per-call timeout on a slow machine too.
        const mcp = await connect({ mcpServers: { t: { url: server.url, timeoutMs: scaled(3_000) } } });
        expect(mcp.connection('t')?.era).toBe('modern');
        const context = new ExecutionContext();
        const result = await new Toolset(mcp).invoke('slow', { ms: scaled(5_000), text: 'report' }, context);
        expect(resultText(result)).toBe('done: report');
        expect(result.isError).not.toBe(true);

        const log = logOf(file);
        const created = log.filter((l) => l.method === 'tools/call');
        expect(created).toHaveLength(1);
        const polls = log.filter((l) => l.method === 'tasks/get' && l.taskId === created[0]!.taskId);
        expect(polls.length).toBeGreaterThan(1);
        // Every poll echoed the requestState of the server's last answer (the server refuses a stale one).
        for (const poll of polls) expect(poll.requestState).toBe(poll.expected);

        const progress = context.events.filter((e): e is RunProgressEvent => e.type === 'progress');
        const call = context.events.find((e) => e.type === 'tool_call') as { callId: string };
        expect(progress.length).toBeGreaterThanOrEqual(2);
        expect(progress[0]).toMatchObject({ tool: 'slow', callId: call.callId, progress: 1 });
        expect(progress.map((p) => p.message)).toContain('0% done');
        expect(progress.some((p) => /^[1-9]0% done$/.test(p.message ?? ''))).toBe(true);
      }),
    ),
  );

  it.concurrent('polls as often as the server asks (pollIntervalMs), not on its own slower backoff', () =>
    withServers((http) =>
      withConnections(async (connect) => {
        const file = join(tempDir('tasks'), 'tasks.json');
        const server = await http(file);
        const mcp = await connect({ mcpServers: { t: { url: server.url } } });
        const result = await new Toolset(mcp).invoke('slow', { ms: 3_000, text: 'interval' }, new ExecutionContext());
        expect(resultText(result)).toBe('done: interval');
        // The server asks for a poll every 40 ms. The client's own backoff (500 ms, then half as long again each time)
        // fits at most 4 polls into 3 s; following the server's interval gives dozens, even on a loaded machine.
        const polls = logOf(file).filter((l) => l.method === 'tasks/get');
        expect(polls.length).toBeGreaterThan(10);
      }),
    ),
  );

  it('answers input_required through the elicitation handler and tasks/update (stdio)', async () => {
    const file = join(tempDir('tasks'), 'tasks.json');
    const asked: string[] = [];
    const mcp = await connect(
      { mcpServers: { t: stdio(file) } },
      {
        elicitation: (params, { server }) => {
          asked.push(`${server}: ${params.message}`);
          return { action: 'accept', content: { name: 'Ada' } };
        },
      },
    );
    expect(resultText(await new Toolset(mcp).invoke('ask', {}))).toBe('Hello, Ada!');
    // Asked once, although the server showed the request on more than one poll until the update landed.
    expect(asked).toEqual(['t: Please enter your name.']);
    expect(logOf(file).filter((l) => l.method === 'tasks/update')).toHaveLength(1);
  });

  it('fails a call whose input the client cannot give, and cancels the task', async () => {
    const file = join(tempDir('tasks'), 'tasks.json');
    const mcp = await connect({ mcpServers: { t: stdio(file) } });
    const result = await new Toolset(mcp).invoke('ask', {});
    expect(result.isError).toBe(true);
    expect(resultText(result)).toMatch(
      /Tool "ask" on MCP server "t" needed input \(elicitation\/create\) this client could not give: .*no elicitation handler.*cancelled/,
    );
    expect(logOf(file).map((l) => l.method)).toContain('tasks/cancel');
  });

  it('maps the end of a task as a plain call: structured content checked against the output schema, isError kept', async () => {
    const file = join(tempDir('tasks'), 'tasks.json');
    const mcp = await connect({ mcpServers: { t: stdio(file) } });
    const toolset = new Toolset(mcp);
    const counted = await toolset.invoke('counter', { ms: 100 });
    expect(counted.isError).not.toBe(true);
    expect(counted.structured).toEqual({ count: 3 });
    const bad = await toolset.invoke('counter', { ms: 100, bad: true });
    expect(bad.isError).toBe(true);
    expect(resultText(bad)).toMatch(/^Tool "counter" returned structured content that does not match its output schema/);
    const toolError = await toolset.invoke('tool_error', {});
    expect(toolError.isError).toBe(true);
    expect(resultText(toolError)).toBe('invalid input');
  });

  it("turns a failed task into an error naming the server, the tool and the server's error text", async () => {
    const file = join(tempDir('tasks'), 'tasks.json');
    const connection = await McpConnection.open('t', stdio(file));
    try {
      const error = await connection.callTool('fail', {}).catch((e: unknown) => e);
      expect(isAnytoolError(error) && error.code).toBe(ErrorCode.McpProtocolError);
      expect((error as Error).message).toBe('Tool "fail" on MCP server "t" failed (error -32603): API rate limit exceeded');
      const dropped = await connection.callTool('dropped', {}).catch((e: unknown) => e);
      expect(isAnytoolError(dropped) && dropped.code).toBe(ErrorCode.Aborted);
      expect((dropped as Error).message).toBe('Tool "dropped" on MCP server "t" was cancelled by the server: the operator stopped it.');
    } finally {
      await connection.close();
    }
  });

  it.concurrent("is cancelled with tasks/cancel when the call's signal aborts", () =>
    withServers(async (http) => {
      const file = join(tempDir('tasks'), 'tasks.json');
      // Slow polls, so the abort lands between two: a poll cut off in flight would leave the client the requestState
      // before it (the server's newer one never arrived). The server logs a poll when it arrives, before it answers:
      // the abort waits a moment more for the answer to reach the client, well within the 2 s to the next poll.
      const server = await http(file, 0, { TASKS_POLL_MS: '2000' });
      const connection = await McpConnection.open('t', { url: server.url });
      try {
        const controller = new AbortController();
        const call = connection.callTool('forever', {}, { signal: controller.signal });
        await until(() => logOf(file).some((l) => l.method === 'tasks/get'), 10_000, 'the first poll');
        await new Promise((resolve) => setTimeout(resolve, scaled(300)));
        controller.abort(new Error('the user stopped the run'));
        const error = await call.catch((e: unknown) => e);
        expect(isAnytoolError(error) && error.code).toBe(ErrorCode.Aborted);
        await until(() => logOf(file).some((l) => l.method === 'tasks/cancel'), 10_000, 'tasks/cancel');
        const cancel = logOf(file).find((l) => l.method === 'tasks/cancel')!;
        expect(cancel.requestState).toBe(cancel.expected);
      } finally {
        await connection.close();
      }
    }),
  );

  it.concurrent('is bound by taskTimeoutMs only when it is set: then cancelled and failed with TIMEOUT', async () => {
    const file = join(tempDir('tasks'), 'tasks.json');
    const connection = await McpConnection.open('t', { ...stdio(file), taskTimeoutMs: 600 }, { timeoutMs: scaled(5_000) });
    try {
      const error = await connection.callTool('forever', {}).catch((e: unknown) => e);
      expect(isAnytoolError(error) && error.code).toBe(ErrorCode.Timeout);
      expect((error as Error).message).toMatch(/^Tool "forever" on MCP server "t" did not finish within taskTimeoutMs \(600 ms\); task "[^"]+" was cancelled/);
      expect(logOf(file).map((l) => l.method)).toContain('tasks/cancel');
    } finally {
      await connection.close();
    }
  });
});

describe('calls that stay plain', () => {
  const connect = connectForEachTest();

  it('on the 2025 era: no task, the call waits for the result', async () => {
    const file = join(tempDir('tasks'), 'tasks.json');
    const mcp = await connect({ mcpServers: { t: { ...stdio(file), protocol: 'legacy' } } });
    expect(mcp.connection('t')?.era).toBe('legacy');
    expect(resultText(await new Toolset(mcp).invoke('slow', { ms: 200, text: 'old' }))).toBe('done: old');
    expect(logOf(file)).toEqual([]);
  });

  it('with a server that does not offer the extension, and with { tasks: false }', async () => {
    const file = join(tempDir('tasks'), 'tasks.json');
    const off = await http(file, 0, { TASKS_OFF: '1' });
    const mcp = await connect({ mcpServers: { t: { url: off.url } } });
    expect(resultText(await new Toolset(mcp).invoke('slow', { ms: 100, text: 'plain' }))).toBe('done: plain');
    const declined = await connect({ mcpServers: { t: stdio(file) } }, { tasks: false });
    expect(resultText(await new Toolset(declined).invoke('slow', { ms: 100, text: 'declined' }))).toBe('done: declined');
    expect(logOf(file)).toEqual([]);
  });
});

describe('a task outlives restarts', () => {
  it.concurrent('of an HTTP server: polling goes on against the server started again on the same port', () =>
    withServers(async (http) => {
      const file = join(tempDir('tasks'), 'tasks.json');
      const port = await freePort();
      const first = await http(file, port);
      const connection = await McpConnection.open('t', { url: first.url });
      try {
        const call = connection.callTool('slow', { ms: 2_500, text: 'kept' });
        await until(() => logOf(file).some((l) => l.method === 'tasks/get'), 10_000, 'the first poll');
        await first.stop();
        const second = await http(file, port);
        expect((await call).content).toEqual([{ type: 'text', text: 'done: kept' }]);
        expect(second.child.pid).not.toBe(first.child.pid);
        // Polls reached both processes.
        const pollers = new Set(
          logOf(file)
            .filter((l) => l.method === 'tasks/get')
            .map((l) => l.pid),
        );
        expect(pollers).toEqual(new Set([first.child.pid, second.child.pid]));
      } finally {
        await connection.close();
      }
    }),
  );

  it.concurrent('of a stdio server that died: the connection starts it again and polls the same task', async () => {
    const file = join(tempDir('tasks'), 'tasks.json');
    const connection = await McpConnection.open('t', stdio(file));
    const pids: number[] = [];
    try {
      const call = connection.callTool('slow', { ms: 2_000, text: 'again' });
      await until(() => logOf(file).some((l) => l.method === 'tasks/get'), 10_000, 'the first poll');
      pids.push(connection.pid!);
      process.kill(connection.pid!, 'SIGKILL');
      expect((await call).content).toEqual([{ type: 'text', text: 'done: again' }]);
      pids.push(connection.pid!);
      expect(connection.starts).toBe(2);
      expect(logOf(file).filter((l) => l.method === 'tools/call')).toHaveLength(1);
    } finally {
      await connection.close();
    }
    for (const pid of pids) await until(() => !alive(pid), 5_000, `process ${pid} to exit`);
  });

  it.concurrent('of the client: a new toolset finds the handle in the taskHandles store and resumes the task', () =>
    withServers(async (http) => {
      const file = join(tempDir('tasks'), 'tasks.json');
      const server = await http(file);
      const store = new MemoryStore();
      try {
        const before = await McpToolset.connect({ mcpServers: { t: { url: server.url } } }, { taskHandles: store });
        const call = new Toolset(before).invoke('slow', { ms: 1_500, text: 'resumed' });
        await until(() => logOf(file).some((l) => l.method === 'tasks/get'), 10_000, 'the first poll');
        const [handle] = await before.pendingTasks();
        expect(handle).toMatchObject({ server: 't', tool: 'slow', taskId: logOf(file)[0]!.taskId });
        // The client stops while the task runs: its call ends, the task does not.
        await before.close();
        const cut = await call;
        expect(cut.error?.code).toBe(ErrorCode.McpConnectionClosed);
        expect(resultText(cut)).toMatch(/closed by the client\. Task "[^"]+" goes on on the server/);

        const after = await McpToolset.connect({ mcpServers: { t: { url: server.url } } }, { taskHandles: store });
        try {
          const pending = await after.pendingTasks();
          expect(pending.map((h) => h.taskId)).toEqual([handle!.taskId]);
          await expect(after.resumeTask({ ...pending[0]!, server: 'elsewhere' })).rejects.toMatchObject({
            code: ErrorCode.UnknownServer,
            message: expect.stringContaining('"elsewhere", which is not in this toolset'),
          });
          const result = await after.resumeTask(pending[0]!);
          expect(resultText(result)).toBe('done: resumed');
          expect(await after.pendingTasks()).toEqual([]);
        } finally {
          await after.close();
        }
        // One task, made once: the resume polled it, never called the tool again.
        expect(logOf(file).filter((l) => l.method === 'tools/call')).toHaveLength(1);
      } finally {
        await store.close();
      }
    }),
  );
});

describe('a task in an agent run', () => {
  it.concurrent('is one tool call with a longer life: the quick call of the same turn runs and ends meanwhile', () =>
    withServers(async (http) => {
      const file = join(tempDir('tasks'), 'tasks.json');
      const server = await http(file);
      const mcp = await McpToolset.connect({ mcpServers: { t: { url: server.url } } }, { trusted: true });
      try {
        const model = new ScriptedModel([
          {
            toolCalls: [
              { id: 'long', name: 'slow', arguments: { ms: 1_500, text: 'report' } },
              { id: 'short', name: 'quick', arguments: { text: 'hi' } },
            ],
          },
          (request) => ({
            text: latestToolResults(request)
              .map((m) => resultText(m.result))
              .join(' | '),
          }),
        ]);
        const result = await new Agent({ model, tools: mcp }).run('write the report and say hi');
        expect(result.text).toBe('done: report | quick: hi');
        const ends = result.context.events.filter((e): e is ToolResultEvent => e.type === 'tool_result').map((e) => e.callId);
        expect(ends).toEqual(['short', 'long']);
        // The task was polled after the quick call had ended: the two overlapped.
        expect(logOf(file).filter((l) => l.method === 'tasks/get').length).toBeGreaterThan(1);
        expect(result.context.events.some((e) => e.type === 'progress' && e.callId === 'long')).toBe(true);
      } finally {
        await mcp.close();
      }
    }),
  );
});
