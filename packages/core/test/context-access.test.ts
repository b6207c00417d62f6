import {
  BaseTool,
  ErrorCode,
  ExecutionContext,
  Tool,
  Toolset,
  defineTool,
  resultText,
  tool,
  toolsFrom,
  type FunctionToolOptions,
  type RunEvent,
} from '@anytool/core';

const noArgs = { type: 'object', properties: {} } as const;
const keyArg = { type: 'object', properties: { key: { type: 'string' } }, required: ['key'] } as const;

function secretContext(): ExecutionContext {
  return new ExecutionContext({
    state: new Map<string, unknown>([
      ['apiKey', 'sk-secret'],
      ['cart', ['apple']],
      ['tenant', 'acme'],
    ]),
  });
}

describe('a tool gets a view of the context with what it declared', () => {
  it('fails, naming the tool, the key and the fix, when a tool reads a state key it did not declare (tool(), @Tool, BaseTool alike)', async () => {
    const readKey = ({ key }: { key: string }, context: ExecutionContext): unknown => context.state.get(key);
    const fn = tool(readKey, { name: 'peek', description: 'Reads a key.', parameters: keyArg, context: { state: { read: ['cart'] } } });

    class Shop {
      @Tool({ description: 'Reads a key.', parameters: keyArg, context: { state: { read: ['cart'] } } })
      peekMethod(args: { key: string }, context: ExecutionContext): unknown {
        return context.state.get(args.key);
      }
    }
    class Peek extends BaseTool<{ key: string }> {
      constructor() {
        super({ name: 'peekClass', description: 'Reads a key.', parameters: keyArg, context: { state: { read: ['cart'] } } });
      }
      execute(context: ExecutionContext, { key }: { key: string }): unknown {
        return context.state.get(key);
      }
    }
    const toolset = new Toolset(fn, ...toolsFrom(new Shop()), new Peek());
    for (const name of ['peek', 'peekMethod', 'peekClass']) {
      const context = secretContext();
      // The declared key reads as usual.
      expect(resultText(await toolset.invoke(name, { key: 'cart' }, context))).toBe('["apple"]');
      const denied = await toolset.invoke(name, { key: 'apiKey' }, context);
      expect(denied.isError).toBe(true);
      expect(denied.error?.code).toBe(ErrorCode.ContextAccessDenied);
      const text = resultText(denied);
      expect(text).toContain(`tool "${name}" (`);
      expect(denied.error?.message).toContain(`tool "${name}" (`);
      expect(text).toContain('read context.state key "apiKey", which it did not declare');
      expect(text).toContain("context: { state: { read: ['cart', 'apiKey'] } }");
      expect(text).not.toContain('sk-secret');
      const event = context.events.filter((e): e is Extract<RunEvent, { type: 'tool_result' }> => e.type === 'tool_result').at(-1)!;
      expect(event.result).toEqual(denied);
    }
  });

  it('gives a tool that declares nothing its signal and call id only', async () => {
    const seen: Record<string, unknown> = {};
    const probe = tool(
      (_args: object, context: ExecutionContext) => {
        seen['signal'] = context.signal;
        seen['callId'] = context.callId;
        const attempt = (what: string, use: () => unknown): void => {
          try {
            use();
            seen[what] = 'allowed';
          } catch (error) {
            seen[what] = (error as { code?: unknown }).code;
          }
        };
        attempt('state.get', () => context.state.get('tenant'));
        attempt('state.has', () => context.state.has('tenant'));
        attempt('state.set', () => context.state.set('tenant', 'evil'));
        attempt('state.delete', () => context.state.delete('tenant'));
        attempt('state.clear', () => context.state.clear());
        attempt('events', () => context.events);
        attempt('subscribe', () => context.subscribe(() => undefined));
        attempt('record', () => context.record({ type: 'message', role: 'assistant', text: 'x' }));
        attempt('progress', () => context.progress(1));
        seen['keys'] = [...context.state.keys()];
        seen['size'] = context.state.size;
        return 'done';
      },
      { name: 'probe', description: 'Probes its context.', parameters: noArgs, context: true },
    );
    const controller = new AbortController();
    const context = new ExecutionContext({ signal: controller.signal, state: new Map([['tenant', 'acme']]) });
    expect(resultText(await new Toolset(probe).invoke('probe', {}, context, { callId: 'c1' }))).toBe('done');
    const denied = ErrorCode.ContextAccessDenied;
    expect(seen).toEqual({
      signal: controller.signal,
      callId: 'c1',
      'state.get': denied,
      'state.has': denied,
      'state.set': denied,
      'state.delete': denied,
      'state.clear': denied,
      events: denied,
      subscribe: denied,
      record: denied,
      progress: denied,
      keys: [],
      size: 0,
    });
    expect(context.state.get('tenant')).toBe('acme');
    expect(probe.contextAccess).toEqual({});
  });

  it('keeps reading and writing apart, and lists only the keys the tool may read', async () => {
    const log: unknown[] = [];
    const counter = tool(
      ({ key }: { key: string }, context: ExecutionContext) => {
        const state = context.state;
        log.push([...state.keys()], Object.fromEntries(state), state.size);
        state.set('count', ((state.get('count') as number | undefined) ?? 0) + 1);
        if (key === 'audit') state.set('audit', 'tried');
        if (key === 'readOwn') return String(state.get('out'));
        state.set('out', 'written');
        return String(state.get('count'));
      },
      { name: 'counter', description: 'Counts.', parameters: keyArg, context: { state: { read: ['count', 'tenant'], write: ['count', 'out'] } } },
    );
    const context = secretContext();
    const toolset = new Toolset(counter);
    expect(resultText(await toolset.invoke('counter', { key: 'x' }, context))).toBe('1');
    expect(context.state.get('out')).toBe('written');
    expect(log).toEqual([['tenant'], { tenant: 'acme' }, 1]);
    // Written but not declared for reading: a write-only key does not read.
    const writeOnly = resultText(await toolset.invoke('counter', { key: 'readOwn' }, context));
    expect(writeOnly).toContain('read context.state key "out", which it did not declare');
    expect(writeOnly).toContain("context: { state: { read: ['count', 'tenant', 'out'], write: ['count', 'out'] } }");
    const readOnly = resultText(await toolset.invoke('counter', { key: 'audit' }, context));
    expect(readOnly).toContain('wrote context.state key "audit", which it did not declare');
    expect(readOnly).toContain("write: ['count', 'out', 'audit']");
    expect(context.state.has('audit')).toBe(false);
  });

  it('lets events and progress through only as declared', async () => {
    const make = (name: string, context: boolean | { events?: boolean | 'record' | 'read'; progress?: boolean }) =>
      tool(
        (_args: object, ctx: ExecutionContext) => {
          const out: string[] = [];
          for (const [what, use] of [
            ['record', () => ctx.record({ type: 'message', role: 'assistant', text: `${name} says hi` })],
            ['read', () => ctx.events.length],
            ['progress', () => ctx.progress(1, 2, 'half')],
          ] as const) {
            try {
              use();
              out.push(what);
            } catch (error) {
              expect((error as { code?: unknown }).code).toBe(ErrorCode.ContextAccessDenied);
            }
          }
          return out.join(',');
        },
        { name, description: 'Uses events.', parameters: noArgs, context },
      );
    const toolset = new Toolset(
      make('recorder', { events: 'record' }),
      make('reader', { events: 'read' }),
      make('both', { events: true, progress: true }),
      make('progressOnly', { progress: true }),
    );
    const context = new ExecutionContext();
    expect(resultText(await toolset.invoke('recorder', {}, context))).toBe('record');
    expect(resultText(await toolset.invoke('reader', {}, context))).toBe('read');
    expect(resultText(await toolset.invoke('both', {}, context))).toBe('record,read,progress');
    expect(resultText(await toolset.invoke('progressOnly', {}, context))).toBe('progress');
    const progress = context.events.filter((e) => e.type === 'progress');
    expect(progress.map((p) => p.type === 'progress' && p.tool)).toEqual(['both', 'progressOnly']);
  });

  it('names the missing declaration for events and progress in the error', async () => {
    const talker = tool(
      (_args: object, context: ExecutionContext) => {
        context.progress(1);
        return 'never';
      },
      { name: 'talker', description: 'Reports progress.', parameters: noArgs, context: { events: 'record' } },
    );
    const text = resultText(await talker.invoke(new ExecutionContext(), {}));
    expect(text).toContain('reported progress (context.progress), which it did not declare');
    expect(text).toContain("context: { events: 'record', progress: true }");
  });

  it('prefers an explicit declaration to the build step’s inference, and says so when the inferred one falls short', async () => {
    const build = { parameters: noArgs, paramNames: [], contextIndex: 0, context: { state: { read: ['tenant'] } } };
    const reader = (key: string) => (context: ExecutionContext) => String(context.state.get(key));
    const inferred = tool(reader('tenant'), { name: 'inferred', description: 'Reads the tenant.' }, build);
    expect(inferred.contextAccess).toEqual({ state: { read: ['tenant'] } });
    expect(resultText(await inferred.invoke(secretContext(), {}))).toBe('acme');
    const short = tool(reader('apiKey'), { name: 'short', description: 'Reads a key.' }, build);
    const text = resultText(await short.invoke(secretContext(), {}));
    expect(text).toContain('read context.state key "apiKey"');
    expect(text).toContain('The build step inferred its declaration from its code; it infers state keys only when they are string literals');
    const explicit = tool(reader('cart'), { name: 'explicit', description: 'Reads the cart.', context: { state: { read: ['cart'] } } }, build);
    expect(explicit.contextAccess).toEqual({ state: { read: ['cart'] } });
    expect(resultText(await explicit.invoke(secretContext(), {}))).toBe('apple');
    expect(resultText(await explicit.invoke(new ExecutionContext({ state: new Map([['tenant', 't']]) }), {}))).toBe('undefined');
  });

  it('works the same through defineTool, the imperative twin of @Tool', async () => {
    class Notes {
      add(_args: object, context: ExecutionContext): number {
        const notes = (context.state.get('notes') as string[] | undefined) ?? [];
        context.state.set('notes', [...notes, 'n']);
        return notes.length + 1;
      }
    }
    defineTool(Notes, 'add', { description: 'Adds a note.', parameters: noArgs, context: { state: { read: ['notes'], write: ['notes'] } } });
    const [add] = toolsFrom(new Notes());
    const context = new ExecutionContext();
    expect(resultText(await add!.invoke(context, {}))).toBe('1');
    expect(context.state.get('notes')).toEqual(['n']);
    expect(add!.contextAccess).toEqual({ state: { read: ['notes'], write: ['notes'] } });
  });

  it('refuses a malformed declaration when the tool is made', () => {
    const fn = (): string => 'x';
    const bad =
      (context: unknown): (() => unknown) =>
      () =>
        // Declarations as plain JavaScript (or JSON) could give them, past the types.
        tool(fn, { name: 'bad', description: 'Bad.', parameters: noArgs, context: context as NonNullable<FunctionToolOptions['context']> });
    expect(bad({ state: { read: 'cart' } })).toThrow(/context\.state\.read must be an array of state keys/);
    expect(bad({ state: ['cart'] })).toThrow(/context\.state must be \{ read\?/);
    expect(bad({ events: 'write' })).toThrow(/context\.events must be 'record', 'read', true or false/);
    expect(bad({ stat: {} })).toThrow(/context has no option "stat"/);
    try {
      bad({ progress: 'yes' })();
    } catch (error) {
      expect((error as { code?: unknown }).code).toBe(ErrorCode.InvalidToolDefinition);
    }
    expect.assertions(5);
  });

  it('lets a tool call another through its own view: the callee gets its own view, the run records both calls', async () => {
    const inner = tool((_args: object, context: ExecutionContext) => String(context.state.get('tenant')), {
      name: 'inner',
      description: 'Reads the tenant.',
      parameters: noArgs,
      context: { state: { read: ['tenant'] } },
    });
    const outer = tool(
      async (_args: object, context: ExecutionContext) => {
        const result = await inner.invoke(context, {});
        let own: unknown;
        try {
          own = context.state.get('tenant');
        } catch (error) {
          own = (error as { code?: unknown }).code;
        }
        return `${resultText(result)} / ${String(own)}`;
      },
      { name: 'outer', description: 'Calls inner.', parameters: noArgs, context: true },
    );
    const context = secretContext();
    expect(resultText(await outer.invoke(context, {}))).toBe(`acme / ${ErrorCode.ContextAccessDenied}`);
    expect(context.events.filter((e) => e.type === 'tool_call').map((e) => e.type === 'tool_call' && e.tool)).toEqual(['outer', 'inner']);
  });

  it('keeps the declaration frozen: changing the options object afterwards changes nothing', async () => {
    const read = ['tenant'];
    const reader = tool((_args: object, context: ExecutionContext) => String(context.state.get('apiKey')), {
      name: 'reader',
      description: 'Reads.',
      parameters: noArgs,
      context: { state: { read } },
    });
    read.push('apiKey');
    expect(resultText(await reader.invoke(secretContext(), {}))).toContain('did not declare');
    expect(Object.isFrozen(reader.contextAccess)).toBe(true);
  });
});
