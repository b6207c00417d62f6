import { ExecutionContext, FunctionTool, Toolset, tool, ErrorCode } from '@anytool/core';
import { WHOLE_ARGUMENTS } from '@anytool/core/internal';
import { missingBuildInfoMessage } from './helpers/missing-build-info';

const schema = { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number', default: 10 } }, required: ['a'] };

describe('calling convention', () => {
  it('with build information, parameters are matched by name and the context sits at its declared position', async () => {
    const calls: unknown[][] = [];
    const fn = (a: number, context: ExecutionContext, b = 10): number => {
      calls.push([a, context instanceof ExecutionContext, b]);
      return a + b;
    };
    const t = tool(fn, { name: 'add', description: 'Add.' }, { parameters: schema, paramNames: ['a', 'b'], contextIndex: 1 });
    expect(t.needsContext).toBe(true);
    const toolset = new Toolset(t);
    expect((await toolset.invoke('add', { b: 2, a: 1 })).structured).toBe(3);
    expect(calls).toEqual([[1, true, 2]]);
  });

  it('a destructured parameter receives the whole arguments object', async () => {
    const t = tool(
      ({ a, b }: { a: number; b: number }) => a * b,
      { name: 'mul', description: 'Multiply.' },
      { parameters: schema, paramNames: [WHOLE_ARGUMENTS] },
    );
    expect((await new Toolset(t).invoke('mul', { a: 3, b: 4 })).structured).toBe(12);
  });

  it('with explicit parameters, the function receives the arguments object, and the context second only when declared', async () => {
    const plain = tool((args: { a: number }, ...rest: unknown[]) => [args.a, rest.length], { name: 'plain', description: 'x', parameters: schema });
    const aware = tool((args: { a: number }, context: ExecutionContext) => [args.a, context.runId], {
      name: 'aware',
      description: 'x',
      parameters: schema,
      context: true,
    });
    const toolset = new Toolset(plain, aware);
    const context = new ExecutionContext({ runId: 'r1' });
    expect((await toolset.invoke('plain', { a: 1 }, context)).structured).toEqual([1, 0]);
    expect((await toolset.invoke('aware', { a: 2 }, context)).structured).toEqual([2, 'r1']);
  });

  it('sync and async functions alike', async () => {
    const sync = tool(() => 'sync', { name: 'sync', description: 'x', parameters: { type: 'object', properties: {} } });
    const asyncTool = tool(async () => 'async', { name: 'async_tool', description: 'x', parameters: { type: 'object', properties: {} } });
    const toolset = new Toolset(sync, asyncTool);
    expect((await toolset.invoke('sync', {})).content).toEqual([{ type: 'text', text: 'sync' }]);
    expect((await toolset.invoke('async_tool', {})).content).toEqual([{ type: 'text', text: 'async' }]);
  });

  it('a function with neither build information nor parameters fails when it is made, saying how to fix it', () => {
    const make = (): FunctionTool =>
      new FunctionTool(
        function lonely() {
          return 1;
        },
        { description: 'x' },
      );
    expect(make).toThrow(
      expect.objectContaining({ code: ErrorCode.MissingSchema, message: missingBuildInfoMessage('tool "lonely" (function lonely)') }) as Error,
    );
  });

  it('rejects { context: true } on a tool whose build information already places the context', () => {
    expect(() => tool((a: number) => a, { name: 'a', description: 'x', context: true }, { parameters: schema, paramNames: ['a'] })).toThrow(/context: true/);
  });

  it('explicit parameters that name every parameter the build read keep parameters by name', async () => {
    const add = tool(
      function add(a: number, b: number) {
        return a + b;
      },
      { description: 'Add.', parameters: schema },
      { parameters: schema, paramNames: ['a', 'b'] },
    );
    expect((await new Toolset(add).invoke('add', { a: 1, b: 2 })).structured).toBe(3);
  });

  it('explicit parameters for a single object parameter give it the arguments object', async () => {
    const sum = tool(
      function sum(args: { a: number; b: number }) {
        return args.a + args.b;
      },
      { description: 'Sum.', parameters: schema },
      { parameters: { type: 'object', properties: { args: { type: 'object' } } }, paramNames: ['args'] },
    );
    expect((await new Toolset(sum).invoke('sum', { a: 1, b: 2 })).structured).toBe(3);
  });

  it('explicit parameters that miss some named parameters are refused, naming them', () => {
    expect(() =>
      tool(
        function f(a: number, c: number) {
          return a + c;
        },
        { description: 'x', parameters: schema },
        { parameters: schema, paramNames: ['a', 'c'] },
      ),
    ).toThrow(/has no "c"/);
  });

  it('a function with more parameters than the arguments object and no context declared is refused', () => {
    expect(() =>
      tool(
        function two(args: object, context: ExecutionContext) {
          return [args, context];
        },
        { description: 'x', parameters: schema },
      ),
    ).toThrow(/takes more than one parameter.*pass \{ context: true \}/);
    // Function.length stops at the first default (2 here), so the message gives no count.
    expect(() =>
      tool(
        function three(args: object, other: object, limit = 1) {
          return [args, other, limit];
        },
        { description: 'x', parameters: schema },
      ),
    ).toThrow(/^tool "three" \(function three\): it takes more than one parameter, but/);
  });
});
