import { AnytoolError, BaseTool, ErrorCode, ExecutionContext, Toolset, tool, type ToolResult } from '@anytool/core';

const objectSchema = (properties: Record<string, unknown>, required: string[] = []) => ({ type: 'object', properties, required });

const never = tool(() => new Promise(() => undefined), { name: 'never', description: 'Never settles and ignores aborts.', parameters: objectSchema({}), timeoutMs: 50 });
const hang = tool(() => new Promise(() => undefined), { name: 'hang', description: 'Never settles.', parameters: objectSchema({}) });
const boom = tool(() => {
  throw new TypeError('disk is full');
}, { name: 'boom', description: 'Throws.', parameters: objectSchema({}) });
const rejects = tool(async () => Promise.reject(new Error('upstream said 503')), { name: 'rejects', description: 'Rejects.', parameters: objectSchema({}) });
const weather = tool((args: { city: string; days: number }) => args, {
  name: 'weather',
  description: 'Forecast.',
  parameters: objectSchema({ city: { type: 'string', minLength: 2 }, days: { type: 'integer', minimum: 1, maximum: 7 }, unit: { enum: ['c', 'f'] } }, ['city', 'days']),
});
const observesSignal = tool(
  (_args: object, context: ExecutionContext) =>
    new Promise((_resolve, reject) => context.signal!.addEventListener('abort', () => reject(new Error('saw abort')))),
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
    const circular = tool(() => {
      const a: Record<string, unknown> = {};
      a['self'] = a;
      return a;
    }, { name: 'circular', description: 'x', parameters: objectSchema({}) });
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
    const a = tool(function lookup() {
      return 1;
    }, { description: 'x', parameters: objectSchema({}) });
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
    expect(codeOf(() => new Toolset(tool(() => 1, { name: 'broken', description: 'x', parameters: { type: 'object', properties: { a: { type: 'strin' } } } })))).toBe(ErrorCode.InvalidSchema);
  });

  it('things that are not tools', () => {
    expect(codeOf(() => new Toolset({} as object))).toBe(ErrorCode.InvalidOptions);
    expect(codeOf(() => tool('nope' as never))).toBe(ErrorCode.InvalidOptions);
  });
});
