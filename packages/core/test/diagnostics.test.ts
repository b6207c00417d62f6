// Diagnostics: every non-fatal problem is one coded entry, said once, counted after, bounded;
// listeners hear of it, and inside a run it is an event of the run.
import {
  type BaseTool,
  DiagnosticLog,
  ErrorCode,
  ExecutionContext,
  MAX_DIAGNOSTICS,
  Toolset,
  tool,
  type Diagnostic,
  type DynamicToolSource,
} from '@anytool/core';

const make = (name: string): BaseTool => tool(() => name, { name, description: `tool ${name}`, parameters: { type: 'object', properties: {} } });

class Changing implements DynamicToolSource {
  private readonly listeners: Array<() => void> = [];
  constructor(public tools: BaseTool[]) {}
  set(...tools: BaseTool[]): void {
    this.tools = tools;
    for (const l of this.listeners) l();
  }
  subscribe(listener: () => void): () => void {
    this.listeners.push(listener);
    return () => undefined;
  }
}

describe('DiagnosticLog', () => {
  it('keeps one entry per problem, counts repeats, and tells listeners once', () => {
    const log = new DiagnosticLog();
    const heard: Diagnostic[] = [];
    log.subscribe((d) => heard.push(d));
    for (let i = 0; i < 3; i++) log.report({ code: ErrorCode.DuplicateTool, source: 'toolset', tool: 'x', message: 'two tools are named "x"' });
    log.report({ code: ErrorCode.DuplicateTool, source: 'toolset', tool: 'y', message: 'two tools are named "y"' });
    expect(log.entries.map((d) => [d.tool, d.count])).toEqual([
      ['x', 3],
      ['y', 1],
    ]);
    expect(heard.map((d) => d.tool)).toEqual(['x', 'y']);
    expect(log.entries[0]).toMatchObject({ type: 'diagnostic', code: ErrorCode.DuplicateTool, time: expect.any(Number) });
  });

  it('is bounded: past the limit, further problems are counted on one TOO_MANY_DIAGNOSTICS entry', () => {
    const log = new DiagnosticLog();
    for (let i = 0; i < 10_000; i++) log.report({ code: ErrorCode.ToolFailed, source: 's', message: `problem ${i}` });
    expect(log.size).toBe(MAX_DIAGNOSTICS + 1);
    const last = log.entries.at(-1)!;
    expect(last).toMatchObject({ code: ErrorCode.TooManyDiagnostics, count: 10_000 - MAX_DIAGNOSTICS });
    expect(last.message).toContain(`problem ${MAX_DIAGNOSTICS}`);
  });

  it('a listener that throws is a LISTENER_FAILED diagnostic; the other listeners are still told', () => {
    const log = new DiagnosticLog();
    const heard: string[] = [];
    log.subscribe(() => {
      throw new Error('listener bug');
    });
    log.subscribe((d) => heard.push(d.code));
    log.report({ code: ErrorCode.ToolFailed, source: 's', message: 'm' });
    expect(heard).toEqual([ErrorCode.ListenerFailed, ErrorCode.ToolFailed]);
    expect(log.entries.map((d) => d.code)).toEqual([ErrorCode.ToolFailed, ErrorCode.ListenerFailed]);
  });
});

describe('diagnostics of a run', () => {
  it('inside a call they carry its id and tool, and are one event of the run however often they recur', async () => {
    const noisy = tool(
      (_args: object, context: ExecutionContext) => {
        for (let i = 0; i < 1000; i++) context.diagnose({ code: ErrorCode.ResultTooLarge, message: 'the page was cut' });
        return 'ok';
      },
      { name: 'noisy', description: 'Complains.', parameters: { type: 'object', properties: {} }, context: true },
    );
    const context = new ExecutionContext();
    await new Toolset(noisy).invoke('noisy', {}, context, { callId: 'c7' });
    const diagnostics = context.events.filter((e) => e.type === 'diagnostic');
    expect(diagnostics).toEqual([
      expect.objectContaining({ code: ErrorCode.ResultTooLarge, tool: 'noisy', callId: 'c7', source: 'tool "noisy"', count: 1000 }),
    ]);
    expect(context.events).toHaveLength(3);
  });
});

describe('diagnostics of a toolset', () => {
  it('a dynamic source that brings a name collision or a broken tool: the toolset keeps going and says so once', () => {
    const source = new Changing([make('a')]);
    const toolset = new Toolset(make('x'), source);
    const heard: string[] = [];
    toolset.diagnostics.subscribe((d) => heard.push(d.code));
    const broken = tool(() => 1, { name: 'broken', description: 'x', parameters: { type: 'object', properties: { p: { type: 'nonsense' } } } });
    source.set(make('a'), make('x'), broken);
    source.set(make('a'), make('x'), broken);
    expect(toolset.names.sort()).toEqual(['a', 'x']);
    expect(heard.sort()).toEqual([ErrorCode.DuplicateTool, ErrorCode.InvalidSchema]);
    expect(toolset.diagnostics.entries.map((d) => d.count)).toEqual([2, 2]);
    expect(toolset.warnings.join('\n')).toMatch(/two tools are named "x".*left out/);
  });

  it('a listener of its changes that throws is a diagnostic, not an exception of add()', () => {
    const toolset = new Toolset();
    toolset.subscribe(() => {
      throw new Error('listener bug');
    });
    expect(() => toolset.add(make('b'))).not.toThrow();
    expect(toolset.diagnostics.entries).toEqual([
      expect.objectContaining({ code: ErrorCode.ListenerFailed, message: expect.stringContaining('listener bug') }),
    ]);
  });
});

describe('hostile diagnostics', () => {
  it('a huge message is cut, so one entry stays small whatever was thrown', () => {
    const log = new DiagnosticLog();
    const entry = log.report({ code: ErrorCode.ListenerFailed, source: 's', message: 'x'.repeat(10_000_000) });
    expect(entry.message.length).toBeLessThan(2_100);
    expect(entry.message).toContain('(10000000 characters)');
    expect(log.report({ code: ErrorCode.ListenerFailed, source: 's', message: 'x'.repeat(10_000_000) }).count).toBe(2);
  });
});
