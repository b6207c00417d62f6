import { AnytoolError, BaseTool, ErrorCode, ExecutionContext, Toolset, tool, type ToolResult } from '@anytool/core';

const objectSchema = (properties: Record<string, unknown>, required: string[] = []) => ({ type: 'object', properties, required });

const never = tool(() => new Promise(() => undefined), {
  name: 'never',
  description: 'Never settles and ignores aborts.',
  parameters: objectSchema({}),
  timeoutMs: 50,
});
const hang = tool(() => new Promise(() => undefined), { name: 'hang', description: 'Never settles.', parameters: objectSchema({}) });
const boom = tool(
  () => {
    throw new TypeError('disk is full');
  },
  { name: 'boom', description: 'Throws.', parameters: objectSchema({}) },
);
const rejects = tool(async () => Promise.reject(new Error('upstream said 503')), { name: 'rejects', description: 'Rejects.', parameters: objectSchema({}) });
const weather = tool((args: { city: string; days: number }) => args, {
  name: 'weather',
  description: 'Forecast.',
  parameters: objectSchema({ city: { type: 'string', minLength: 2 }, days: { type: 'integer', minimum: 1, maximum: 7 }, unit: { enum: ['c', 'f'] } }, [
    'city',
    'days',
  ]),
});
const seenAborts: unknown[] = [];
const observesSignal = tool(
  (_args: object, context: ExecutionContext) =>
    new Promise((_resolve, reject) =>
      context.signal!.addEventListener('abort', () => {
        seenAborts.push((context.signal!.reason as { code?: string }).code);
        reject(new Error('saw abort'));
      }),
    ),
  { name: 'observes', description: 'Waits for the signal.', parameters: objectSchema({}), context: true, timeoutMs: 30 },
);

function text(result: ToolResult): string {
  return result.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
}

describe('every failure is an error result, never an exception', () => {
  const toolset = new Toolset(never, hang, boom, rejects, weather, observesSignal);

  it('unknown tool: lists the valid names', async () => {
    const result = await toolset.invoke('wether', {});
    expect(result.isError).toBe(true);
    expect(result.error?.code).toBe(ErrorCode.UnknownTool);
    expect(text(result)).toContain('Unknown tool "wether"');
    for (const name of toolset.names) expect(text(result)).toContain(name);
  });

  it('bad arguments: a field path and an expectation for each problem, and the tool never runs', async () => {
    let ran = false;
    const guarded = tool(() => (ran = true), { name: 'guarded', description: 'x', parameters: objectSchema({ n: { type: 'number' } }, ['n']) });
    const own = new Toolset(guarded);
    const result = await own.invoke('guarded', { n: 'seven' });
    expect(ran).toBe(false);
    expect(result.error?.code).toBe(ErrorCode.InvalidArguments);
    const many = text(await toolset.invoke('weather', { city: 'X', days: 9, unit: 'k', extra: 1 }));
    expect(many).toContain('- /city: must NOT have fewer than 2 characters');
    expect(many).toContain('- /days: must be <= 7');
    expect(many).toContain('- /unit: must be one of ["c","f"]');
    const missing = text(await toolset.invoke('weather', {}));
    expect(missing).toContain('- /city: is required');
    expect(missing).toContain('- /days: is required');
  });

  it('arguments that are not JSON, or not an object', async () => {
    const notJson = await toolset.invoke('weather', '{"city": "Oslo", days: 2');
    expect(notJson.error?.code).toBe(ErrorCode.InvalidArguments);
    expect(text(notJson)).toMatch(/not valid JSON/);
    const array = await toolset.invoke('weather', '[1,2]');
    expect(text(array)).toMatch(/expected one JSON object, got an array/);
    expect((await toolset.invoke('weather', '{"city":"Oslo","days":2}')).isError).toBe(false);
  });

  it('exception in the tool: the model gets the message, the developer the stack', async () => {
    const thrown = await toolset.invoke('boom', {});
    expect(thrown.error?.code).toBe(ErrorCode.ToolFailed);
    expect(text(thrown)).toBe('Tool "boom" failed: disk is full');
    expect(thrown.error?.message).toContain('TypeError: disk is full');
    const rejected = await toolset.invoke('rejects', {});
    expect(text(rejected)).toBe('Tool "rejects" failed: upstream said 503');
  });

  it('timeout: per-tool timeoutMs, even when the tool ignores every signal', async () => {
    const result = await toolset.invoke('never', {});
    expect(result.error?.code).toBe(ErrorCode.Timeout);
    expect(text(result)).toBe('Tool "never" timed out after 50 ms.');
    const override = await toolset.invoke('hang', {}, new ExecutionContext(), { timeoutMs: 20 });
    expect(override.error?.code).toBe(ErrorCode.Timeout);
  });

  it('a timeout aborts the signal the tool sees', async () => {
    const context = new ExecutionContext({ signal: new AbortController().signal });
    const result = await toolset.invoke('observes', {}, context);
    expect(result.error?.code).toBe(ErrorCode.Timeout);
    expect(seenAborts).toEqual([ErrorCode.Timeout]);
    expect(context.signal!.aborted).toBe(false);
  });

  it('an abort while the build step prepares the arguments: the tool never runs and the call settles', async () => {
    let ran = false;
    const slowPrepare = tool(
      () => {
        ran = true;
        return new Promise(() => undefined);
      },
      { name: 'slow_prepare', description: 'x' },
      { parameters: objectSchema({}), paramNames: [], prepare: [async (args) => new Promise((resolve) => setTimeout(() => resolve(args), 30))] },
    );
    const controller = new AbortController();
    const pending = new Toolset(slowPrepare).invoke('slow_prepare', {}, new ExecutionContext({ signal: controller.signal }));
    setTimeout(() => controller.abort(), 5);
    expect((await pending).error?.code).toBe(ErrorCode.Aborted);
    expect(ran).toBe(false);
  });

  it('a tool that aborts its own run and never settles still settles', async () => {
    const controller = new AbortController();
    const selfAbort = tool(
      () => {
        controller.abort();
        return new Promise(() => undefined);
      },
      { name: 'self_abort', description: 'x', parameters: objectSchema({}) },
    );
    const result = await new Toolset(selfAbort).invoke('self_abort', {}, new ExecutionContext({ signal: controller.signal }));
    expect(result.error?.code).toBe(ErrorCode.Aborted);
  });

  it('a result whose then getter throws is an error result', async () => {
    const hostile = tool(
      () =>
        Object.defineProperty({}, 'then', {
          get: () => {
            throw new Error('then exploded');
          },
        }),
      { name: 'hostile', description: 'x', parameters: objectSchema({}) },
    );
    const result = await new Toolset(hostile).invoke('hostile', {});
    expect(result.error?.code).toBe(ErrorCode.ToolFailed);
    expect(text(result)).toContain('then exploded');
  });

  it('a bad per-call timeout is an error result, not a misfired timer', async () => {
    const result = await toolset.invoke('boom', {}, new ExecutionContext(), { timeoutMs: 3e9 });
    expect(result.error?.code).toBe(ErrorCode.InvalidOptions);
    expect(text(result)).toMatch(/timeoutMs must be a whole number/);
  });

  it('abort before the call: the tool does not run', async () => {
    let ran = false;
    const t = tool(() => (ran = true), { name: 't', description: 'x', parameters: objectSchema({}) });
    const controller = new AbortController();
    controller.abort(new Error('user pressed stop'));
    const result = await new Toolset(t).invoke('t', {}, new ExecutionContext({ signal: controller.signal }));
    expect(ran).toBe(false);
    expect(result.error?.code).toBe(ErrorCode.Aborted);
  });

  it('abort during the call: a tool that ignores the abort still settles at once', async () => {
    const controller = new AbortController();
    const context = new ExecutionContext({ signal: controller.signal });
    const pending = toolset.invoke('hang', {}, context);
    setTimeout(() => controller.abort(), 10);
    const result = await pending;
    expect(result.error?.code).toBe(ErrorCode.Aborted);
    expect(context.events.map((e) => e.type)).toEqual(['tool_call', 'tool_result']);
  });

  it('results the model cannot read are errors too', async () => {
    const fnResult = tool(() => () => 1, { name: 'fn_result', description: 'x', parameters: objectSchema({}) });
    const circular = tool(
      () => {
        const a: Record<string, unknown> = {};
        a['self'] = a;
        return a;
      },
      { name: 'circular', description: 'x', parameters: objectSchema({}) },
    );
    const own = new Toolset(fnResult, circular);
    expect((await own.invoke('fn_result', {})).error?.code).toBe(ErrorCode.InvalidResult);
    expect((await own.invoke('circular', {})).error?.code).toBe(ErrorCode.InvalidResult);
  });
});

describe('programming errors throw at registration with a coded error', () => {
  function codeOf(fn: () => unknown): string | undefined {
    try {
      fn();
    } catch (error) {
      expect(error).toBeInstanceOf(AnytoolError);
      return (error as AnytoolError).code;
    }
    return undefined;
  }

  it('duplicate names name both sources', () => {
    const a = tool(
      function lookup() {
        return 1;
      },
      { description: 'x', parameters: objectSchema({}) },
    );
    class lookupTool extends BaseTool {
      constructor() {
        super({ name: 'lookup', description: 'y', parameters: objectSchema({}) });
      }
      execute(): number {
        return 2;
      }
    }
    expect(codeOf(() => new Toolset(a, new lookupTool()))).toBe(ErrorCode.DuplicateTool);
    expect(() => new Toolset(a, new lookupTool())).toThrow(/function lookup.*class lookupTool/);
    const toolset = new Toolset(a);
    expect(() => toolset.add(new lookupTool())).toThrow(AnytoolError);
    expect(toolset.names).toEqual(['lookup']);
  });

  it('a bad name says which providers reject it and suggests one', () => {
    const bad = tool(() => 1, { name: 'get weather!', description: 'x', parameters: objectSchema({}) });
    expect(codeOf(() => new Toolset(bad))).toBe(ErrorCode.InvalidToolName);
    expect(() => new Toolset(bad)).toThrow(/OpenAI needs .*get_weather_/);
    const long = tool(() => 1, { name: 'x'.repeat(65), description: 'x', parameters: objectSchema({}) });
    expect(codeOf(() => new Toolset(long))).toBe(ErrorCode.InvalidToolName);
  });

  it('a missing description or a broken schema', () => {
    expect(codeOf(() => new Toolset(tool(() => 1, { name: 'nodesc', parameters: objectSchema({}) })))).toBe(ErrorCode.MissingDescription);
    expect(codeOf(() => new Toolset(tool(() => 1, { name: 'arr', description: 'x', parameters: { type: 'array' } })))).toBe(ErrorCode.InvalidSchema);
    expect(
      codeOf(() => new Toolset(tool(() => 1, { name: 'broken', description: 'x', parameters: { type: 'object', properties: { a: { type: 'strin' } } } }))),
    ).toBe(ErrorCode.InvalidSchema);
  });

  it('a schema that does not compile, or an unknown dialect, fails at registration', () => {
    const dangling = tool(() => 1, { name: 'dangling', description: 'x', parameters: { type: 'object', properties: { a: { $ref: '#/$defs/Missing' } } } });
    expect(codeOf(() => new Toolset(dangling))).toBe(ErrorCode.InvalidSchema);
    const draft4 = tool(() => 1, {
      name: 'draft4',
      description: 'x',
      parameters: { $schema: 'http://json-schema.org/draft-04/schema#', type: 'object', properties: {} },
    });
    expect(codeOf(() => new Toolset(draft4))).toBe(ErrorCode.InvalidSchema);
    expect(() => new Toolset(draft4)).toThrow(/tool "draft4".*draft-04/);
  });

  it('a timeout out of range', () => {
    expect(codeOf(() => tool(() => 1, { name: 'huge', description: 'x', parameters: objectSchema({}), timeoutMs: 3e9 }))).toBe(ErrorCode.InvalidToolDefinition);
    expect(codeOf(() => tool(() => 1, { name: 'zero', description: 'x', parameters: objectSchema({}), timeoutMs: 0 }))).toBe(ErrorCode.InvalidToolDefinition);
  });

  it('an anonymous function without a name', () => {
    expect(codeOf(() => tool(() => 1, { description: 'x', parameters: objectSchema({}) }))).toBe(ErrorCode.InvalidToolName);
    expect(() => tool(() => 1, { description: 'x', parameters: objectSchema({}) })).toThrow(/an anonymous function \(\(\) => 1\) needs a name/);
  });

  it('the name the build step saw written (a variable for an anonymous function), unless the options give one', () => {
    const build = { name: 'mul', description: 'x', parameters: objectSchema({}), paramNames: [] };
    expect(tool(() => 1, {}, build).name).toBe('mul');
    expect(tool(() => 1, { name: 'explicit' }, build).name).toBe('explicit');
    // A bundler renamed `function mul` to `mul2`: the tool keeps the name written in the source.
    expect(tool(function mul2() {}, {}, build).name).toBe('mul');
    const { name: _name, ...unnamed } = build;
    expect(tool(function own() {}, {}, unnamed).name).toBe('own');
  });

  it('things that are not tools', () => {
    expect(codeOf(() => new Toolset(Object.create(null) as object))).toBe(ErrorCode.InvalidToolDefinition);
    expect(codeOf(() => new Toolset({} as object))).toBe(ErrorCode.InvalidToolDefinition);
    expect(codeOf(() => tool('nope' as never))).toBe(ErrorCode.InvalidToolDefinition);
  });
});
