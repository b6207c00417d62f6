import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ErrorCode, ExecutionContext, Toolset, resultText, tool, type RunProgressEvent } from '@anytool/core';
import { McpToolset, type McpRoot } from '@anytool/mcp';
import { EVERYTHING, FILESYSTEM, MEMORY, alive, tempDir } from './helpers';
import { scaled } from '../../../core/test/helpers/time-scale';

jest.setTimeout(scaled(60_000));

// Real servers from npm in real child processes, one toolset with a local tool.
describe('McpToolset over real npm servers (stdio)', () => {
  const files = tempDir('fs');
  const memoryFile = join(tempDir('memory'), 'memory.jsonl');
  const roots: McpRoot[] = [{ uri: 'file:///projects/demo', name: 'demo' }];
  const sampled: string[] = [];
  let mcp: McpToolset;
  let toolset: Toolset;
  const double = tool(({ n }: { n: number }) => n * 2, {
    name: 'double',
    description: 'Doubles a number.',
    parameters: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
  });

  beforeAll(async () => {
    writeFileSync(join(files, 'hello.txt'), 'hello from disk');
    mcp = await McpToolset.connect(
      {
        mcpServers: {
          everything: { command: process.execPath, args: [EVERYTHING, 'stdio'], progress: true },
          filesystem: { command: process.execPath, args: [FILESYSTEM, files] },
          memory: { command: process.execPath, args: [MEMORY], env: { MEMORY_FILE_PATH: memoryFile } },
        },
      },
      {
        prefix: true,
        roots,
        sampling: (params) => {
          const first = params.messages[0]?.content;
          sampled.push(first !== undefined && !Array.isArray(first) && first.type === 'text' ? first.text : '?');
          return { role: 'assistant', content: { type: 'text', text: 'a sampled answer' }, model: 'scripted', stopReason: 'endTurn' };
        },
        elicitation: () => ({ action: 'decline' }),
      },
    );
    toolset = new Toolset(double, mcp);
  });

  afterAll(async () => {
    const pids = mcp.connections.map((c) => c.pid);
    await mcp.close();
    for (const pid of pids) expect(alive(pid!)).toBe(false);
  });

  it('lists every server’s tools with schemas, titles and annotations, next to local tools', () => {
    expect(toolset.has('double')).toBe(true);
    for (const name of [
      'everything_echo',
      'everything_get-sum',
      'filesystem_read_text_file',
      'filesystem_write_file',
      'memory_create_entities',
      'memory_read_graph',
    ])
      expect(toolset.has(name)).toBe(true);
    const echo = mcp.get('everything_echo')!;
    expect(echo.source).toBe('mcp everything');
    expect(echo.remoteName).toBe('echo');
    expect(echo.title).toBe('Echo Tool');
    expect(echo.annotations).toEqual({ readOnly: true, destructive: false, idempotent: true, openWorld: false });
    expect(echo.definition.parameters).toMatchObject({ type: 'object', properties: { message: { type: 'string' } }, required: ['message'] });
    const openai = toolset.definitions('openai') as Array<{ function: { name: string } }>;
    expect(openai.map((t) => t.function.name)).toEqual(expect.arrayContaining(['double', 'everything_echo', 'memory_read_graph']));
    for (const t of toolset.tools) expect(t.name.length).toBeLessThanOrEqual(64);
  });

  it('calls echo and a sum through toolset.invoke exactly like a local tool', async () => {
    const context = new ExecutionContext();
    const echo = await toolset.invoke('everything_echo', { message: 'hi' }, context);
    expect(echo).toMatchObject({ isError: false, content: [{ type: 'text', text: 'Echo: hi' }] });
    const sum = await toolset.invoke('everything_get-sum', '{"a": 2, "b": 3}', context);
    expect(resultText(sum)).toBe('The sum of 2 and 3 is 5.');
    const local = await toolset.invoke('double', { n: 21 }, context);
    expect(resultText(local)).toBe('42');
    expect(context.events.filter((e) => e.type === 'tool_result').map((e) => (e as { tool: string }).tool)).toEqual([
      'everything_echo',
      'everything_get-sum',
      'double',
    ]);
  });

  it('validates arguments before the call reaches the server', async () => {
    const result = await toolset.invoke('everything_get-sum', { a: 'two' });
    expect(result.isError).toBe(true);
    expect(result.error?.code).toBe(ErrorCode.InvalidArguments);
  });

  it('returns an image result', async () => {
    const result = await toolset.invoke('everything_get-tiny-image', {});
    const image = result.content.find((p) => p.type === 'image');
    expect(image).toMatchObject({ type: 'image', mimeType: 'image/png' });
    expect(
      Buffer.from((image as { data: string }).data, 'base64')
        .subarray(1, 4)
        .toString(),
    ).toBe('PNG');
  });

  it('returns structured content checked against the output schema', async () => {
    const weather = mcp.get('everything_get-structured-content')!;
    expect(weather.definition.outputSchema).toMatchObject({ type: 'object', properties: { temperature: { type: 'number' } } });
    const result = await toolset.invoke('everything_get-structured-content', { location: 'Chicago' });
    expect(result.isError).toBe(false);
    expect(result.structured).toEqual({ temperature: 36, conditions: 'Light rain / drizzle', humidity: 82 });
  });

  it('turns progress notifications of a long-running call into progress events of the run', async () => {
    const context = new ExecutionContext();
    const result = await toolset.invoke('everything_trigger-long-running-operation', { duration: 1, steps: 4 }, context);
    expect(resultText(result)).toContain('Long running operation completed');
    const progress = context.events.filter((e): e is RunProgressEvent => e.type === 'progress');
    // The last notification can race the result, so no exact count.
    expect(progress.length).toBeGreaterThanOrEqual(1);
    const call = context.events.find((e) => e.type === 'tool_call') as { callId: string };
    expect(progress.every((p) => p.tool === 'everything_trigger-long-running-operation' && p.callId === call.callId && p.total === 4)).toBe(true);
    expect(progress.map((p) => p.progress)).toEqual([...progress.map((p) => p.progress)].sort((a, b) => a - b));
  });

  it('turns an isError result into an error result with the server’s text', async () => {
    const result = await toolset.invoke('filesystem_read_text_file', { path: '/etc/hostname' });
    expect(result.isError).toBe(true);
    expect(result.error?.code).toBe(ErrorCode.ToolFailed);
    expect(resultText(result)).toMatch(/access denied|outside allowed/i);
    expect(result.error?.message).toContain('MCP server "filesystem"');
  });

  it('reads and writes files in the temp dir through server-filesystem', async () => {
    const read = await toolset.invoke('filesystem_read_text_file', { path: join(files, 'hello.txt') });
    expect(resultText(read)).toBe('hello from disk');
    const write = await toolset.invoke('filesystem_write_file', { path: join(files, 'out.txt'), content: 'written by a tool' });
    expect(write.isError).toBe(false);
    expect(readFileSync(join(files, 'out.txt'), 'utf8')).toBe('written by a tool');
  });

  it('keeps a knowledge graph in MEMORY_FILE_PATH through server-memory', async () => {
    const created = await toolset.invoke('memory_create_entities', {
      entities: [{ name: 'Ada', entityType: 'person', observations: ['wrote the first program'] }],
    });
    expect(created.isError).toBe(false);
    const graph = await toolset.invoke('memory_read_graph', {});
    expect(resultText(graph)).toContain('wrote the first program');
    expect(readFileSync(memoryFile, 'utf8')).toContain('Ada');
  });

  it('follows tools the server added after start (list_changed) and routes sampling to the callback', async () => {
    // server-everything registers these only after initialize, once it knows the client's capabilities,
    // and announces them with notifications/tools/list_changed.
    expect(toolset.has('everything_trigger-sampling-request')).toBe(true);
    expect(toolset.has('everything_get-roots-list')).toBe(true);
    const result = await toolset.invoke('everything_trigger-sampling-request', { prompt: 'say hi' });
    expect(resultText(result)).toContain('a sampled answer');
    expect(sampled.at(-1)).toContain('say hi');
  });

  it('routes elicitation to the callback and serves the configured roots', async () => {
    const elicited = await toolset.invoke('everything_trigger-elicitation-request', {});
    expect(resultText(elicited)).toMatch(/decline/i);
    const listed = await toolset.invoke('everything_get-roots-list', {});
    expect(resultText(listed)).toContain('file:///projects/demo');
  });

  it('tells the server when the roots change', async () => {
    await mcp.connection('everything')!.setRoots([{ uri: 'file:///projects/other', name: 'other' }]);
    let listed = '';
    for (let i = 0; i < 100 && !listed.includes('file:///projects/other'); i++) {
      listed = resultText(await toolset.invoke('everything_get-roots-list', {}));
      if (!listed.includes('file:///projects/other')) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(listed).toContain('file:///projects/other');
  });

  it('answers 1,000 concurrent calls on one connection, each with its own result', async () => {
    const context = new ExecutionContext();
    const results = await Promise.all(Array.from({ length: 1000 }, (_, i) => toolset.invoke('everything_echo', { message: `m${i}` }, context)));
    results.forEach((r, i) => expect(resultText(r)).toBe(`Echo: m${i}`));
    expect(mcp.connection('everything')!.starts).toBe(1);
  });
});
