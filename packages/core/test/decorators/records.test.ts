import { Tool, ExecutionContext, Toolset, toolsFrom } from '@anytool/core';

describe('decorator records live with the class', () => {
  it('exist as soon as the class is defined, with no metadata polyfill or reflect-metadata from core', () => {
    class Defined {
      @Tool({ description: 'x', parameters: { type: 'object', properties: {} } })
      run(): number {
        return 1;
      }
    }
    expect(toolsFrom(new Defined()).map((t) => t.name)).toEqual(['run']);
    // Core polyfills nothing: Symbol.metadata is what the runtime has (none in Node today).
    expect(Object.getOwnPropertyNames(Symbol)).not.toContain('metadata');
    // The records are hidden: nothing enumerable was added to the class or its prototype.
    expect(Object.keys(Defined)).toEqual([]);
    expect(Object.keys(Defined.prototype)).toEqual([]);
  });

  it('reads Symbol.metadata when it reads records: classes defined before and after a polyfill both work', () => {
    class Before {
      @Tool({ description: 'b', parameters: { type: 'object', properties: {} } })
      before(): string {
        return 'b';
      }
    }
    const symbol = Symbol as { metadata?: symbol };
    symbol.metadata = Symbol.for('Symbol.metadata');
    try {
      class After extends Before {
        @Tool({ description: 'a', parameters: { type: 'object', properties: {} } })
        after(): string {
          return 'a';
        }
      }
      expect(
        toolsFrom(new After())
          .map((t) => t.name)
          .sort(),
      ).toEqual(['after', 'before']);
      expect(toolsFrom(new Before()).map((t) => t.name)).toEqual(['before']);
    } finally {
      delete symbol.metadata;
    }
  });

  it('two classes never share records, and a subclass does not change its parent', () => {
    class A {
      @Tool({ description: 'a', parameters: { type: 'object', properties: {} } })
      a(): string {
        return 'a';
      }
    }
    class B extends A {
      @Tool({ description: 'b', parameters: { type: 'object', properties: {} } })
      b(): string {
        return 'b';
      }
    }
    expect(new Toolset(new A()).names).toEqual(['a']);
    expect(new Toolset(new B()).names.sort()).toEqual(['a', 'b']);
  });

  it('rejects static methods with an error naming the method', () => {
    expect(() => {
      class S {
        @Tool({ description: 's', parameters: { type: 'object', properties: {} } })
        static run(): void {}
      }
      return S;
    }).toThrow(/static method.*run/);
  });

  it('the instance method keeps `this`', async () => {
    class Counter {
      n = 0;
      @Tool({ description: 'Increment.', parameters: { type: 'object', properties: {} }, context: true })
      inc(_args: object, context: ExecutionContext): string {
        this.n++;
        return `${this.n} in ${context.runId}`;
      }
    }
    const counter = new Counter();
    const toolset = new Toolset(counter);
    await toolset.invoke('inc', {}, new ExecutionContext({ runId: 'r' }));
    expect((await toolset.invoke('inc', {}, new ExecutionContext({ runId: 'r' }))).content).toEqual([{ type: 'text', text: '2 in r' }]);
  });

  it('survive a decorator above @Tool() that replaces the method', async () => {
    const seen: string[] = [];
    /** A method decorator of either kind that puts a wrapper in the method's place, as logging or retry decorators do. */
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    function logged(...args: unknown[]): any {
      const wrap = (method: Function) =>
        function (this: unknown, ...callArgs: unknown[]) {
          seen.push('logged');
          return method.apply(this, callArgs);
        };
      const [value, context, descriptor] = args as [Function, unknown, PropertyDescriptor | undefined];
      if (typeof context === 'object' && context !== null && 'kind' in context) return wrap(value);
      descriptor!.value = wrap(descriptor!.value as Function);
      return descriptor;
    }
    class Stacked {
      @logged
      @Tool({
        description: 'Adds two numbers.',
        parameters: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
      })
      add({ a, b }: { a: number; b: number }): number {
        return a + b;
      }
    }
    const tools = new Toolset(toolsFrom(new Stacked()));
    expect(tools.names).toEqual(['add']);
    const result = await tools.get('add')!.invoke(new ExecutionContext(), { a: 2, b: 3 });
    expect(result.content).toEqual([{ type: 'text', text: '5' }]);
    expect(seen).toEqual(['logged']);
  });
});
