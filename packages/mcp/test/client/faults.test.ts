import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AnytoolError, ErrorCode, ExecutionContext, Toolset, resultText } from '@anytool/core';
import { McpConnection, McpToolset } from '@anytool/mcp';
import { alive, fixture, tempDir, until } from './helpers';

jest.setTimeout(30_000);

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
  const open: McpToolset[] = [];
  const connect = async (...args: Parameters<typeof McpToolset.connect>): Promise<McpToolset> => {
    const mcp = await McpToolset.connect(...args);
    open.push(mcp);
    return mcp;
  };
  afterEach(async () => {
    const closing = open.splice(0);
    const pids = closing.flatMap((m) => m.connections.map((c) => c.pid).filter((pid): pid is number => pid !== undefined));
    await Promise.all(closing.map((m) => m.close()));
    // Nothing is left running.
    for (const pid of pids) await until(() => !alive(pid), 5_000, `process ${pid} to exit`);
  });

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

  it('hangs: a call settles with TIMEOUT at its timeout, the server is told to cancel, and the connection stays usable', async () => {
    const mcp = await connect({ mcpServers: { f: { ...fixture(), toolTimeouts: { hang: 300, slow: 300 } } } });
    const toolset = new Toolset(mcp);
    const hung = await toolset.invoke('hang', {});
    expect(hung.error?.code).toBe(ErrorCode.Timeout);
    expect(resultText(hung)).toContain('300 ms');
    const slow = await toolset.invoke('slow', { ms: 5_000 });
    expect(slow.error?.code).toBe(ErrorCode.Timeout);
    await until(() => true);
    expect(resultText(await toolset.invoke('cancelled_count', {}))).toBe('1');
    expect(resultText(await toolset.invoke('echo', { message: 'still here' }))).toBe('still here');
  });

  it('hangs at start: connect fails with MCP_CONNECT_FAILED after startTimeoutMs, with the stderr tail, and the process is gone', async () => {
    const error = await connectError(McpToolset.connect({ mcpServers: { f: { ...fixture('hang-on-start'), startTimeoutMs: 500 } } }));
    expect(error.code).toBe(ErrorCode.McpConnectFailed);
    expect(error.message).toContain('did not answer initialize within 500 ms');
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
    const error = await connectError(McpToolset.connect({ mcpServers: { good: fixture(), bad: fixture('exit-on-start') } }, { onStderr: (_server, text) => stderr.push(text) }));
    expect(error.code).toBe(ErrorCode.McpConnectFailed);
    const good = pidsIn(stderr.join('')).filter((pid) => stderr.join('').includes(`fixture[${pid}]: ready`));
    expect(good).toHaveLength(1);
    await until(() => !alive(good[0]!), 5_000, 'the good server to be closed');
  });

  it('slow to start: waits for it within startTimeoutMs; fails and kills it beyond', async () => {
    const mcp = await connect({ mcpServers: { f: fixture('slow-start', { START_DELAY_MS: '800' }) } });
    expect(resultText(await new Toolset(mcp).invoke('echo', { message: 'late but fine' }))).toBe('late but fine');

    const stderr: string[] = [];
    const error = await connectError(McpToolset.connect({ mcpServers: { f: { ...fixture('slow-start', { START_DELAY_MS: '5000' }), startTimeoutMs: 300 } } }, { onStderr: (_s, t) => stderr.push(t) }));
    expect(error.code).toBe(ErrorCode.McpConnectFailed);
    expect(error.message).toContain('within 300 ms');
    for (const pid of pidsIn(stderr.join(''))) await until(() => !alive(pid), 5_000);
  });

  it('restarts with backoff and a bounded number of attempts, then recovers once the server can start', async () => {
    const flag = join(tempDir('flag'), 'broken');
    const mcp = await connect({ mcpServers: { f: fixture('ok', { FAIL_IF_EXISTS: flag }) } }, { restart: { maxAttempts: 3, initialDelayMs: 50 } });
    const connection = mcp.connection('f')!;
    const toolset = new Toolset(mcp);
    writeFileSync(flag, '');
    process.kill(connection.pid!, 'SIGKILL');
    await until(() => !connection.connected, 5_000, 'the connection to notice the death');
    const failed = await toolset.invoke('echo', { message: 'x' });
    expect(failed.error?.code).toBe(ErrorCode.McpConnectFailed);
    expect(failed.error?.message).toContain('could not be started again in 3 attempts');
    expect(failed.error?.message).toContain('the API key is missing');
    expect(connection.diagnostics.filter((d) => d.includes('starting the server again'))).toHaveLength(3);

    rmSync(flag);
    expect(resultText(await toolset.invoke('echo', { message: 'recovered' }))).toBe('recovered');
  });

  it('close() ends calls in flight and every process; later calls are coded errors', async () => {
    const mcp = await McpToolset.connect({ mcpServers: { a: fixture(), b: fixture() } }, { prefix: true });
    const pids = mcp.connections.map((c) => c.pid!);
    const toolset = new Toolset(mcp);
    const inFlight = toolset.invoke('a_slow', { ms: 20_000 }).catch(() => undefined);
    await mcp.close();
    expect((await inFlight)?.error?.code).toBe(ErrorCode.McpConnectionClosed);
    for (const pid of pids) expect(alive(pid)).toBe(false);
    const after = await toolset.invoke('b_echo', { message: 'x' });
    expect(after.error?.code).toBe(ErrorCode.McpConnectionClosed);
  });

  it('Symbol.asyncDispose closes a connection and its process', async () => {
    const connection = await McpConnection.open('f', fixture());
    const pid = connection.pid!;
    expect(alive(pid)).toBe(true);
    await connection[Symbol.asyncDispose]();
    expect(alive(pid)).toBe(false);
  });

  it('a run abort cancels the call: ABORTED at once, the server gets notifications/cancelled', async () => {
    const mcp = await connect({ mcpServers: { f: fixture() } });
    const toolset = new Toolset(mcp);
    const controller = new AbortController();
    const context = new ExecutionContext({ signal: controller.signal });
    const pending = toolset.invoke('slow', { ms: 20_000 }, context);
    setTimeout(() => controller.abort(new Error('user pressed stop')), 100);
    const result = await pending;
    expect(result.error?.code).toBe(ErrorCode.Aborted);
    await until(() => true);
    let count = '';
    for (let i = 0; i < 50 && count !== '1'; i++) {
      count = resultText(await toolset.invoke('cancelled_count', {}));
      if (count !== '1') await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(count).toBe('1');
  });
});
