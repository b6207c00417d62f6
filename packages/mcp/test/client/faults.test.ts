import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AnytoolError, ErrorCode, ExecutionContext, Toolset, resultText } from '@anytool/core';
import { McpConnection, McpToolset } from '@anytool/mcp';
import { FIXTURE, alive, connectForEachTest, fixture, tempDir, until, untilAsync, withConnections } from './helpers';
import { scaled } from '../../../core/test/helpers/time-scale';

// Not scaled: settling well within this timeout is what some tests here check (a call that does not wait for its server).
jest.setTimeout(30_000);

// The tests that mostly wait (on a start timeout, a hung or slow server, a backoff) run side by side (`it.concurrent`),
// beside the others: each closes what it opens itself.

/** A start timeout long enough for a hung fixture to start and say so on stderr, on a slow machine too. */
const HUNG_START_MS = scaled(3_000);

/** Waits until the fixture server has begun a `slow` call: an abort before that would cancel a request it never saw. */
const serverStarted = (toolset: Toolset): Promise<void> =>
  untilAsync(async () => resultText(await toolset.invoke('cancelled_count', { started: true })) === '1', 5_000, 'the server to begin the call');

const pidsIn = (text: string): number[] => [...text.matchAll(/fixture\[(\d+)\]/g)].map((m) => Number(m[1]));

async function connectError(promise: Promise<unknown>): Promise<AnytoolError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(AnytoolError);
    return error as AnytoolError;
  }
  throw new Error('expected the connection to fail');
}

describe('faulty servers', () => {
  const connect = connectForEachTest();

  it('killed mid-call: the call settles at once with MCP_CONNECTION_CLOSED and the next call starts the server again', async () => {
    const mcp = await connect({ mcpServers: { f: fixture() } });
    const connection = mcp.connection('f')!;
    const first = connection.pid!;
    const toolset = new Toolset(mcp);
    // The call would run 20 s and the request timeout is 60 s: settling within this test's 30 s shows it did not wait for either.
    const pending = toolset.invoke('slow', { ms: 20_000 });
    await new Promise((resolve) => setTimeout(resolve, 100));
    process.kill(first, 'SIGKILL');
    const result = await pending;
    expect(result.isError).toBe(true);
    expect(result.error?.code).toBe(ErrorCode.McpConnectionClosed);
    expect(alive(first)).toBe(false);

    const next = await toolset.invoke('echo', { message: 'back' });
    expect(resultText(next)).toBe('back');
    expect(connection.starts).toBe(2);
    const second = connection.pid!;
    expect(second).not.toBe(first);
    await mcp.close();
    expect(alive(second)).toBe(false);
  });

  it('a server that exits during a call: every call in flight settles with its stderr tail, then it recovers', async () => {
    const mcp = await connect({ mcpServers: { f: fixture() } });
    const toolset = new Toolset(mcp);
    const first = mcp.connection('f')!.pid!;
    const inFlight = Array.from({ length: 5 }, () => toolset.invoke('hang', {}));
    const died = await toolset.invoke('die', {});
    const others = await Promise.all(inFlight);
    for (const result of [died, ...others]) {
      expect(result.error?.code).toBe(ErrorCode.McpConnectionClosed);
    }
    expect(died.error?.message).toContain('about to crash');
    expect(alive(first)).toBe(false);
    expect(resultText(await toolset.invoke('add', { a: 1, b: 2 }))).toBe('3');
  });

  it.concurrent('hangs: a call settles with TIMEOUT at its timeout, the server is told to cancel, and the connection stays usable', () =>
    withConnections(async (connect) => {
      const mcp = await connect({ mcpServers: { f: { ...fixture(), toolTimeouts: { hang: 300, slow: 300 } } } });
      const toolset = new Toolset(mcp);
      const hung = await toolset.invoke('hang', {});
      expect(hung.error?.code).toBe(ErrorCode.Timeout);
      expect(resultText(hung)).toContain('300 ms');
      // No progress was asked for, so the error says how progress could have kept a long call alive.
      expect(hung.error?.message).toContain('"progress": true');
      const slow = await toolset.invoke('slow', { ms: 5_000 });
      expect(slow.error?.code).toBe(ErrorCode.Timeout);
      // The server saw notifications/cancelled for the timed-out call (it counts it when its handler stops).
      await untilAsync(async () => resultText(await toolset.invoke('cancelled_count', {})) === '1', 5_000, 'the server to count the cancellation');
      expect(resultText(await toolset.invoke('echo', { message: 'still here' }))).toBe('still here');
    }),
  );

  it.concurrent('hangs at start: connect fails with MCP_CONNECT_FAILED after startTimeoutMs, with the stderr tail, and the process is gone', async () => {
    const error = await connectError(McpToolset.connect({ mcpServers: { f: { ...fixture('hang-on-start'), startTimeoutMs: HUNG_START_MS } } }));
    expect(error.code).toBe(ErrorCode.McpConnectFailed);
    expect(error.message).toContain(`did not answer initialize within ${HUNG_START_MS} ms`);
    expect(error.message).toContain('waiting forever');
    const [pid] = pidsIn(error.message);
    await until(() => !alive(pid!), 5_000, 'the hung server to be killed');
  });

  it('garbage on stdout: bad lines are recorded, not fatal; a call answered only with garbage times out; the next call works', async () => {
    const mcp = await connect({ mcpServers: { f: { ...fixture('garbage'), toolTimeouts: { garble: 300 } } } });
    const toolset = new Toolset(mcp);
    expect(resultText(await toolset.invoke('echo', { message: 'through the noise' }))).toBe('through the noise');
    const garbled = await toolset.invoke('garble', {});
    expect(garbled.error?.code).toBe(ErrorCode.Timeout);
    expect(resultText(await toolset.invoke('add', { a: 2, b: 2 }))).toBe('4');
    expect(mcp.connection('f')!.diagnostics.length).toBeGreaterThan(0);
    expect(mcp.connection('f')!.starts).toBe(1);
  });

  it('exits during start: MCP_CONNECT_FAILED with the tail of its stderr, and nothing left running', async () => {
    const error = await connectError(McpToolset.connect({ mcpServers: { f: fixture('exit-on-start') } }));
    expect(error.code).toBe(ErrorCode.McpConnectFailed);
    expect(error.message).toMatch(/Could not start MCP server "f" \(.*fixture-server\.mjs exit-on-start\): it exited/);
    expect(error.message).toContain('fatal: the API key is missing');
    const [pid] = pidsIn(error.message);
    expect(alive(pid!)).toBe(false);
  });

  it('a command that does not exist: MCP_CONNECT_FAILED naming the command', async () => {
    const error = await connectError(McpToolset.connect({ mcpServers: { f: { command: 'anytool-no-such-command' } } }));
    expect(error.code).toBe(ErrorCode.McpConnectFailed);
    expect(error.message).toContain('anytool-no-such-command');
  });

  it('one failing server of several: the others are closed', async () => {
    const stderr: string[] = [];
    const error = await connectError(
      McpToolset.connect({ mcpServers: { good: fixture(), bad: fixture('exit-on-start') } }, { onStderr: (_server, text) => stderr.push(text) }),
    );
    expect(error.code).toBe(ErrorCode.McpConnectFailed);
    const good = pidsIn(stderr.join('')).filter((pid) => stderr.join('').includes(`fixture[${pid}]: ready`));
    expect(good).toHaveLength(1);
    await until(() => !alive(good[0]!), 5_000, 'the good server to be closed');
  });

  it.concurrent('slow to start: waits for it within startTimeoutMs; fails and kills it beyond', () =>
    withConnections(async (connect) => {
      const mcp = await connect({ mcpServers: { f: fixture('slow-start', { START_DELAY_MS: '800' }) } });
      expect(resultText(await new Toolset(mcp).invoke('echo', { message: 'late but fine' }))).toBe('late but fine');

      const stderr: string[] = [];
      const error = await connectError(
        McpToolset.connect(
          { mcpServers: { f: { ...fixture('slow-start', { START_DELAY_MS: '5000' }), startTimeoutMs: 300 } } },
          { onStderr: (_s, t) => stderr.push(t) },
        ),
      );
      expect(error.code).toBe(ErrorCode.McpConnectFailed);
      expect(error.message).toContain('within 300 ms');
      for (const pid of pidsIn(stderr.join(''))) await until(() => !alive(pid), 5_000);
    }),
  );

  it.concurrent('restarts with backoff and a bounded number of attempts, then recovers once the server can start', () =>
    withConnections(async (connect) => {
      const flag = join(tempDir('flag'), 'broken');
      // When each failed start wrote to stderr: the gaps between attempts must grow.
      const starts: number[] = [];
      const onStderr = (_server: string, text: string): void => {
        for (const _ of text.matchAll(/: starting\n/g)) starts.push(Date.now());
      };
      const mcp = await connect({ mcpServers: { f: fixture('ok', { FAIL_IF_EXISTS: flag }) } }, { restart: { maxAttempts: 4, initialDelayMs: 100 }, onStderr });
      const connection = mcp.connection('f')!;
      const toolset = new Toolset(mcp);
      writeFileSync(flag, '');
      process.kill(connection.pid!, 'SIGKILL');
      await until(() => !connection.connected, 5_000, 'the connection to notice the death');
      const failed = await toolset.invoke('echo', { message: 'x' });
      expect(failed.error?.code).toBe(ErrorCode.McpConnectFailed);
      expect(failed.error?.message).toContain('could not be started again in 4 attempts');
      expect(failed.error?.message).toContain('the API key is missing');
      const attempts = connection.diagnostics.filter((d) => d.includes('starting the server again'));
      expect(attempts).toHaveLength(4);
      // The planned waits double: 0, 100, 200, 400 ms.
      expect(attempts.map((d) => Number(/after waiting (\d+) ms/.exec(d)?.[1]))).toEqual([0, 100, 200, 400]);
      // And they were really waited: each gap between starts is at least its wait (a lower bound only, so a slow machine cannot fail it).
      await until(() => starts.length >= 4, 5_000, 'the stderr of every attempt');
      const gaps = starts.slice(1).map((t, i) => t - starts[i]!);
      expect(gaps[0]).toBeGreaterThanOrEqual(100 - 5);
      expect(gaps[1]).toBeGreaterThanOrEqual(200 - 5);
      expect(gaps[2]).toBeGreaterThanOrEqual(400 - 5);

      rmSync(flag);
      expect(resultText(await toolset.invoke('echo', { message: 'recovered' }))).toBe('recovered');
    }),
  );

  it.concurrent('a server behind a wrapper (sh -c) that hangs at start: the wrapper and the real server are both killed', async () => {
    const stderr: string[] = [];
    const wrapped = {
      command: 'sh',
      args: ['-c', `"${process.execPath}" "${FIXTURE}" hang-on-start; true`],
      env: { IGNORE_STDIN_END: '1' },
      startTimeoutMs: scaled(2_000),
    };
    const error = await connectError(McpConnection.open('w', wrapped, { onStderr: (_s, t) => stderr.push(t) }));
    expect(error.code).toBe(ErrorCode.McpConnectFailed);
    const [inner] = pidsIn(stderr.join(''));
    expect(inner).toBeDefined();
    await until(() => !alive(inner!), 5_000, `the real server (pid ${inner}) under the wrapper to be killed`);
  });

  it.concurrent('close() of a server behind a wrapper ends the real server too, even one that ignores the end of its stdin', async () => {
    const wrapped = { command: 'sh', args: ['-c', `"${process.execPath}" "${FIXTURE}" ok; true`], env: { IGNORE_STDIN_END: '1' } };
    const connection = await McpConnection.open('w', wrapped);
    const wrapper = connection.pid!;
    const inner = Number(((await connection.callTool('pid', {})).content[0] as { text: string }).text);
    expect(inner).not.toBe(wrapper);
    await connection.close();
    await until(() => !alive(inner) && !alive(wrapper), 5_000, 'the wrapper and the real server to exit');
  });

  it.concurrent(
    'close() during a restart kills the server being started and does not wait for startTimeoutMs',
    async () => {
      const flag = join(tempDir('hang'), 'hang');
      const stderr: string[] = [];
      const connection = await McpConnection.open('f', fixture('ok', { HANG_IF_EXISTS: flag }), { onStderr: (_s, t) => stderr.push(t) });
      writeFileSync(flag, '');
      process.kill(connection.pid!, 'SIGKILL');
      await until(() => !connection.connected, 5_000, 'the connection to notice the death');
      // The next call starts the server again, which now hangs: startTimeoutMs is the default 30 s, longer than this test may take.
      const pending = connection.callTool('echo', { message: 'x' }).then(
        () => undefined,
        (error: AnytoolError) => error,
      );
      await until(() => stderr.join('').includes('waiting forever'), 10_000, 'the restarted server to hang');
      const hung = pidsIn(stderr.join('').split('waiting forever')[0]!).pop()!;
      await connection.close();
      expect((await pending)?.code).toBe(ErrorCode.McpConnectionClosed);
      await until(() => !alive(hung), 5_000, 'the hung server to be killed');
    },
    15_000,
  );

  it.concurrent(
    'close() during the backoff wait between restarts ends the wait',
    async () => {
      const flag = join(tempDir('flag'), 'broken');
      const connection = await McpConnection.open('f', fixture('ok', { FAIL_IF_EXISTS: flag }), {
        restart: { maxAttempts: 3, initialDelayMs: 60_000, maxDelayMs: 60_000 },
      });
      writeFileSync(flag, '');
      process.kill(connection.pid!, 'SIGKILL');
      await until(() => !connection.connected, 5_000, 'the connection to notice the death');
      const pending = connection.callTool('echo', { message: 'x' }).then(
        () => undefined,
        (error: AnytoolError) => error,
      );
      // The first attempt fails at once; then the connection waits 60 s before the next.
      await until(() => connection.diagnostics.some((d) => d.includes('attempt 1 of 3')), 5_000, 'the first attempt');
      await new Promise((resolve) => setTimeout(resolve, 300));
      await connection.close();
      expect((await pending)?.code).toBe(ErrorCode.McpConnectionClosed);
      expect(connection.diagnostics.some((d) => d.includes('attempt 2 of 3'))).toBe(false);
    },
    15_000,
  );

  it.concurrent('a server that answers initialize but never tools/list: MCP_CONNECT_FAILED after startTimeoutMs, naming tools/list', async () => {
    const error = await connectError(McpConnection.open('f', { ...fixture('hang-list'), startTimeoutMs: HUNG_START_MS }));
    expect(error.code).toBe(ErrorCode.McpConnectFailed);
    expect(error.message).toContain(`did not answer tools/list within ${HUNG_START_MS} ms`);
    expect(error.message).toContain('not answering tools/list');
    const [pid] = pidsIn(error.message);
    await until(() => !alive(pid!), 5_000, 'the server to be killed');
  });

  it('close() ends calls in flight and every process; later calls are coded errors', async () => {
    const mcp = await McpToolset.connect({ mcpServers: { a: fixture(), b: fixture() } }, { prefix: true });
    const pids = mcp.connections.map((c) => c.pid!);
    const toolset = new Toolset(mcp);
    const held = mcp.get('b_echo')!;
    const inFlight = toolset.invoke('a_slow', { ms: 20_000 }).catch(() => undefined);
    await mcp.close();
    expect((await inFlight)?.error?.code).toBe(ErrorCode.McpConnectionClosed);
    for (const pid of pids) expect(alive(pid)).toBe(false);
    // The toolset dropped the closed server's tools; a tool still held by reference answers with a coded error.
    expect((await toolset.invoke('b_echo', { message: 'x' })).error?.code).toBe(ErrorCode.UnknownTool);
    expect((await held.invoke(new ExecutionContext(), { message: 'x' })).error?.code).toBe(ErrorCode.McpConnectionClosed);
  });

  it('Symbol.asyncDispose closes a connection and its process', async () => {
    const connection = await McpConnection.open('f', fixture());
    const pid = connection.pid!;
    expect(alive(pid)).toBe(true);
    await connection[Symbol.asyncDispose]();
    expect(alive(pid)).toBe(false);
  });

  it('an abort reason with no text (no prototype) still settles the call at once and still tells the server', async () => {
    const mcp = await connect({ mcpServers: { f: fixture() } });
    const toolset = new Toolset(mcp);
    const controller = new AbortController();
    const pending = toolset.invoke('slow', { ms: 20_000 }, new ExecutionContext({ signal: controller.signal }));
    await serverStarted(toolset);
    controller.abort(Object.create(null));
    const result = await pending;
    expect(result.error?.code).toBe(ErrorCode.Aborted);
    await untilAsync(async () => resultText(await toolset.invoke('cancelled_count', {})) === '1', 5_000, 'the server to count the cancellation');
    expect(mcp.connection('f')!.diagnostics.join('\n')).not.toContain('could not tell the server');
  });

  it('a run abort cancels the call: ABORTED at once, the server gets notifications/cancelled', async () => {
    const mcp = await connect({ mcpServers: { f: fixture() } });
    const toolset = new Toolset(mcp);
    const controller = new AbortController();
    const context = new ExecutionContext({ signal: controller.signal });
    const pending = toolset.invoke('slow', { ms: 20_000 }, context);
    await serverStarted(toolset);
    controller.abort(new Error('user pressed stop'));
    const result = await pending;
    expect(result.error?.code).toBe(ErrorCode.Aborted);
    expect(result.error?.message).toContain('was cancelled because the run was aborted');
    await untilAsync(async () => resultText(await toolset.invoke('cancelled_count', {})) === '1', 5_000, 'the server to count the cancellation');
  });
});

describe('aborts outside a request', () => {
  it('a run abort while the server is being started again settles the call at once, and a signal aborted before the call sends nothing', async () => {
    const flag = join(tempDir('flag'), 'broken');
    const connection = await McpConnection.open('f', fixture('ok', { FAIL_IF_EXISTS: flag }), {
      restart: { maxAttempts: 3, initialDelayMs: 60_000, maxDelayMs: 60_000 },
    });
    try {
      writeFileSync(flag, '');
      process.kill(connection.pid!, 'SIGKILL');
      await until(() => !connection.connected, 5_000, 'the connection to notice the death');
      const controller = new AbortController();
      const pending = connection.callTool('echo', { message: 'x' }, { signal: controller.signal }).then(
        () => undefined,
        (error: AnytoolError) => error,
      );
      // The first attempt fails at once; the next would come 60 s later.
      await until(() => connection.diagnostics.some((d) => d.includes('attempt 1 of 3')), 5_000, 'the first attempt');
      const started = Date.now();
      controller.abort(new Error('user pressed stop'));
      const error = await pending;
      expect(Date.now() - started).toBeLessThan(1_000);
      expect(error?.code).toBe(ErrorCode.Aborted);
      expect(error?.message).toContain('was cancelled because the run was aborted');

      // Sent with a signal already aborted, a call does not wait for the restart (60 s away): it is refused at once.
      const refusedAt = Date.now();
      const refused = await connection.callTool('echo', { message: 'y' }, { signal: controller.signal }).catch((e: AnytoolError) => e);
      expect(Date.now() - refusedAt).toBeLessThan(1_000);
      expect((refused as AnytoolError).code).toBe(ErrorCode.Aborted);
      expect((refused as AnytoolError).message).toContain('was not called');
    } finally {
      await connection.close();
    }
  }, 15_000);
});
