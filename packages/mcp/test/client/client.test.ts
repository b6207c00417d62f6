import { AnytoolError, ErrorCode, ExecutionContext, Toolset, resultText, type RunProgressEvent } from '@anytool/core';
import { McpConnection, McpToolset, mcpToolName, readMcpServers } from '@anytool/mcp';
import { getEventListeners } from 'node:events';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { watchStdioStart } from '../../src/client/sdk-internals';
import { FIXTURE, alive, connectForEachTest, fixture, until, untilAsync } from './helpers';
import { scaled } from '../../../core/test/helpers/time-scale';

jest.setTimeout(scaled(30_000));

describe('McpToolset with the fixture server', () => {
  const connect = connectForEachTest();

  it('reads every page of tools/list', async () => {
    const paged = await connect({ mcpServers: { f: fixture('ok', { PAGE_SIZE: '3' }) } });
    const whole = await connect({ mcpServers: { f: fixture() } });
    expect(paged.names).toEqual(whole.names);
    expect(paged.names.length).toBeGreaterThan(10);
  });

  it('follows notifications/tools/list_changed, and so does the toolset that holds it', async () => {
    const mcp = await connect({ mcpServers: { f: fixture() } });
    const toolset = new Toolset(mcp);
    let changes = 0;
    toolset.subscribe(() => changes++);
    expect(toolset.has('late_tool')).toBe(false);
    expect(resultText(await toolset.invoke('add_tool', { name: 'late_tool' }))).toBe('added');
    await until(() => toolset.has('late_tool'), 5_000, 'the toolset to see the new tool');
    expect(changes).toBeGreaterThanOrEqual(1);
    expect(resultText(await toolset.invoke('late_tool', {}))).toBe('ran late_tool');
    expect(mcp.get('echo')).toBe(toolset.get('echo'));
  });

  it('close() empties its tool list and tells subscribers, so a Toolset holding it drops its tools', async () => {
    const mcp = await connect({ mcpServers: { f: fixture() } });
    const toolset = new Toolset(mcp);
    expect(toolset.names).toContain('echo');
    let told = 0;
    mcp.subscribe(() => void told++);
    await mcp.close();
    expect(told).toBe(1);
    expect(mcp.tools).toEqual([]);
    expect(mcp.names).toEqual([]);
    expect(mcp.get('echo')).toBeUndefined();
    expect(toolset.names).toEqual([]);
    expect((await toolset.invoke('echo', { message: 'x' })).isError).toBe(true);
  });

  it('gives the server the safe default environment plus `env`, never the rest of the parent’s', async () => {
    process.env['ANYTOOL_TEST_SECRET'] = 'parent-only';
    try {
      const mcp = await connect({ mcpServers: { f: fixture('ok', { GREETING: 'hello' }) } });
      const toolset = new Toolset(mcp);
      expect(resultText(await toolset.invoke('env', { name: 'GREETING' }))).toBe('hello');
      expect(resultText(await toolset.invoke('env', { name: 'PATH' }))).toBe(process.env['PATH']);
      expect(resultText(await toolset.invoke('env', { name: 'ANYTOOL_TEST_SECRET' }))).toBe('<unset>');

      const inherit = await connect({ mcpServers: { f: { ...fixture('ok', { GREETING: 'hi' }), inheritEnv: true } } });
      expect(resultText(await new Toolset(inherit).invoke('env', { name: 'ANYTOOL_TEST_SECRET' }))).toBe('parent-only');
    } finally {
      delete process.env['ANYTOOL_TEST_SECRET'];
    }
  });

  it('captures stderr instead of printing it', async () => {
    const seen: string[] = [];
    const mcp = await connect({ mcpServers: { f: fixture() } }, { onStderr: (server, text) => seen.push(`${server}:${text}`) });
    const connection = mcp.connection('f')!;
    await until(() => connection.stderr.includes('ready'), 5_000, 'stderr');
    expect(connection.stderr).toMatch(/fixture\[\d+\]: ready \(ok\)/);
    expect(seen.join('')).toContain('f:fixture[');
  });

  it('maps audio, resource links and embedded text and binary resources', async () => {
    const mcp = await connect({ mcpServers: { f: fixture() } });
    const result = await new Toolset(mcp).invoke('resources', {});
    expect(result.content).toEqual([
      { type: 'audio', data: Buffer.from('RIFF0000WAVE').toString('base64'), mimeType: 'audio/wav' },
      { type: 'resource_link', uri: 'file:///notes.txt', name: 'notes.txt', mimeType: 'text/plain', description: 'Some notes' },
      { type: 'resource', uri: 'file:///a.txt', mimeType: 'text/plain', text: 'alpha' },
      { type: 'resource', uri: 'file:///b.bin', mimeType: 'application/octet-stream', blob: Buffer.from([1, 2, 3]).toString('base64') },
    ]);
  });

  it('turns isError into an error result with the server’s text, and bad structured content into MCP_INVALID_RESULT', async () => {
    const toolset = new Toolset(await connect({ mcpServers: { f: fixture() } }));
    const failed = await toolset.invoke('fail', {});
    expect(failed).toMatchObject({ isError: true, content: [{ type: 'text', text: 'the disk is full' }], error: { code: ErrorCode.ToolFailed } });
    const bad = await toolset.invoke('bad_structure', {});
    expect(bad.error?.code).toBe(ErrorCode.McpInvalidResult);
    expect(resultText(bad)).toContain('/n');
  });

  it('restarts the timeout on every progress notification', async () => {
    const mcp = await connect({ mcpServers: { f: { ...fixture(), toolTimeouts: { slow: 400 } } } }, { progress: true });
    const context = new ExecutionContext();
    // 1.2 s in total, but a progress notification every 150 ms keeps the 400 ms timeout from firing.
    const result = await new Toolset(mcp).invoke('slow', { ms: 1_200, steps: 8 }, context);
    expect(resultText(result)).toBe('done');
    const progress = context.events.filter((e): e is RunProgressEvent => e.type === 'progress');
    expect(progress.length).toBeGreaterThanOrEqual(1);
    const call = context.events.find((e) => e.type === 'tool_call') as { callId: string };
    expect(progress[0]).toMatchObject({ tool: 'slow', callId: call.callId, total: 8, message: expect.stringMatching(/^step \d$/) });
  });

  it('asks for progress only when told to: by default no progress token is sent, so no progress events', async () => {
    const mcp = await connect({ mcpServers: { quiet: fixture(), loud: { ...fixture(), progress: true } } }, { prefix: true });
    expect(mcp.get('quiet_slow')!.requestProgress).toBe(false);
    expect(mcp.get('loud_slow')!.requestProgress).toBe(true);
    const toolset = new Toolset(mcp);
    const context = new ExecutionContext();
    expect(resultText(await toolset.invoke('quiet_slow', { ms: 200, steps: 2 }, context))).toBe('done');
    expect(context.events.filter((e) => e.type === 'progress')).toHaveLength(0);
    expect(resultText(await toolset.invoke('loud_slow', { ms: 400, steps: 4 }, context))).toBe('done');
    expect(context.events.filter((e) => e.type === 'progress').length).toBeGreaterThanOrEqual(1);

    // A server's own setting wins over the toolset's option.
    const off = await connect({ mcpServers: { f: { ...fixture(), progress: false } } }, { progress: true });
    expect(off.get('slow')!.requestProgress).toBe(false);
  });

  it('adds no listener per call to the run’s abort signal, and an abort still cancels the call in flight', async () => {
    // The SDK never removes the listener it puts on a request's signal: handing it the run's own signal would
    // leave one listener per finished call, and an abort late in the run would "cancel" every finished request.
    const toolset = new Toolset(await connect({ mcpServers: { f: fixture() } }));
    const controller = new AbortController();
    const context = new ExecutionContext({ signal: controller.signal });
    const listeners = (): number => getEventListeners(controller.signal, 'abort').length;
    const batch = async (from: number): Promise<void> => {
      const results = await Promise.all(Array.from({ length: 200 }, (_, i) => toolset.invoke('echo', { message: `m${from + i}` }, context)));
      expect(results.map(resultText)).toEqual(Array.from({ length: 200 }, (_, i) => `m${from + i}`));
    };
    await batch(0);
    const settled = listeners();
    expect(settled).toBeLessThanOrEqual(1); // at most the one listener every waiter on the signal shares
    await batch(200);
    expect(listeners()).toBe(settled);

    const running = toolset.invoke('slow', { ms: 10_000, steps: 1 }, context);
    await new Promise((resolve) => setTimeout(resolve, 200));
    controller.abort(new Error('user stopped'));
    const aborted = await running;
    expect(aborted.error?.code).toBe(ErrorCode.Aborted);
    await untilAsync(async () => resultText(await toolset.invoke('cancelled_count', {})) === '1', 5_000, 'the server to see the cancellation');
  });

  it('refuses sampling cleanly when no callback was given', async () => {
    const toolset = new Toolset(await connect({ mcpServers: { f: fixture() } }));
    const result = await toolset.invoke('ask_model', { prompt: 'hi' });
    expect(result.isError).toBe(true);
    expect(resultText(result)).toMatch(/sampling refused: .*method not found/i);
  });

  it('names: collisions across servers are an error unless prefixing resolves them; long names are shortened the same way every run', async () => {
    const error = await McpToolset.connect({ mcpServers: { one: fixture(), two: fixture() } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AnytoolError);
    expect((error as AnytoolError).code).toBe(ErrorCode.DuplicateTool);
    expect((error as AnytoolError).message).toContain('pass { prefix: true }');

    const mcp = await connect({ mcpServers: { one: fixture(), 'two.servers': fixture('ok', { EXTRA_TOOLS: '2' }) } }, { prefix: true });
    expect(mcp.names).toEqual(expect.arrayContaining(['one_echo', 'two_servers_echo']));
    const long = mcp.tools.filter((t) => t.remoteName.startsWith('a.very.long'));
    expect(long).toHaveLength(2);
    for (const t of long) {
      expect(t.name).toHaveLength(64);
      expect(t.name).toBe(mcpToolName('two.servers', t.remoteName, true));
      expect(t.definition.name).toMatch(/^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$/);
    }
    expect(long[0]!.name).not.toBe(long[1]!.name);
    const toolset = new Toolset(mcp);
    expect(resultText(await toolset.invoke(long[1]!.name, {}))).toBe(`ran ${long[1]!.remoteName}`);
  });

  it('callToolMapped: an error thrown by the mapping rejects the call as it is, not as a failed call, with and without a run signal', async () => {
    const connection = await McpConnection.open('f', fixture());
    try {
      const boom = new Error('mapping failed');
      for (const signal of [undefined, new AbortController().signal]) {
        const options = signal === undefined ? {} : { signal };
        await expect(
          connection.callToolMapped('echo', { message: 'x' }, options, () => {
            throw boom;
          }),
        ).rejects.toBe(boom);
        await expect(connection.callToolMapped('echo', { message: 'y' }, options, (result) => result.content)).resolves.toEqual([{ type: 'text', text: 'y' }]);
      }
      expect(connection.starts).toBe(1);
    } finally {
      await connection.close();
    }
  });
});

describe('mcpToolName', () => {
  it('keeps valid names, replaces refused characters, and shortens deterministically', () => {
    expect(mcpToolName('fs', 'read_file', false)).toBe('read_file');
    expect(mcpToolName('fs', 'read_file', true)).toBe('fs_read_file');
    expect(mcpToolName('my server', 'get.thing', true)).toBe('my_server_get_thing');
    expect(mcpToolName('x', '9lives', false)).toBe('_9lives');
    const long = 'x'.repeat(100);
    expect(mcpToolName('s', long, true)).toBe(mcpToolName('s', long, true));
    expect(mcpToolName('s', long, true)).toMatch(/^s_x{53}_[0-9a-f]{8}$/);
    expect(mcpToolName('s', `${long}a`, true)).not.toBe(mcpToolName('s', `${long}b`, true));
  });
});

describe('readMcpServers', () => {
  it('accepts the desktop mcpServers shape, as an object or JSON text, and skips disabled servers', () => {
    const json = JSON.stringify({
      mcpServers: {
        files: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/tmp'], env: { DEBUG: '1' } },
        remote: { url: 'https://example.com/mcp', headers: { Authorization: 'Bearer x' } },
        old: { command: 'old-server', disabled: true },
      },
    });
    const servers = readMcpServers(json);
    expect([...servers.keys()]).toEqual(['files', 'remote']);
    expect(readMcpServers({ files: { command: 'npx' } }).get('files')).toEqual({ command: 'npx' });
  });

  it.each([
    [{ mcpServers: { a: { args: ['x'] } } }, 'MCP server "a": give exactly one of "command"'],
    [{ mcpServers: { a: { command: 'x', url: 'http://h' } } }, 'give exactly one of'],
    [{ mcpServers: { a: { command: 'x', args: 'y' } } }, '"args" must be an array of strings'],
    [{ mcpServers: { a: { command: 'x', env: { N: 1 } } } }, '"env" must be an object of string values'],
    [{ mcpServers: { a: { url: 'ftp://h' } } }, 'must be an http or https URL'],
    [{ mcpServers: { a: { url: 'not a url' } } }, 'is not a valid URL'],
    [{ mcpServers: { a: { command: 'x', timeoutMs: -1 } } }, '"timeoutMs" must be a positive number'],
    [{ mcpServers: { a: { command: 'x', progress: 'yes' } } }, '"progress" must be true or false (got "yes")'],
    [{ mcpServers: [] }, '"mcpServers" must be an object'],
    ['{not json', 'not valid JSON'],
  ])('rejects %j with INVALID_MCP_CONFIG', (input, message) => {
    let error: unknown;
    try {
      readMcpServers(input as never);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(AnytoolError);
    expect((error as AnytoolError).code).toBe(ErrorCode.InvalidMcpConfig);
    expect((error as AnytoolError).message).toContain(message);
  });
});

describe('the checked access to SDK internals', () => {
  it('reports the pid of a real stdio transport as soon as it is spawned, with no problem recorded', async () => {
    const transport = new StdioClientTransport({ command: process.execPath, args: [FIXTURE], stderr: 'pipe' });
    const problems: string[] = [];
    const spawned: Array<number | undefined> = [];
    let running: (() => boolean) | undefined;
    watchStdioStart(
      transport,
      (pid, isRunning) => {
        spawned.push(pid);
        running = isRunning;
      },
      (p) => problems.push(p),
    );
    await transport.start();
    const pid = spawned.at(-1)!;
    expect(pid).toBe(transport.pid);
    expect(running?.()).toBe(true);
    expect(problems).toEqual([]);
    await transport.close();
    await until(() => !alive(pid), 5_000, 'the fixture to exit');
    expect(running?.()).toBe(false);
  });

  it('records a diagnostic instead of throwing when the field it needs is missing', () => {
    const problems: string[] = [];
    watchStdioStart(
      {} as StdioClientTransport,
      () => undefined,
      (p) => problems.push(p),
    );
    expect(problems).toEqual([expect.stringContaining('no start() method')]);
  });
});
