import { Tool, ExecutionContext, Toolset } from '@anytool/core';


describe('decorator records live with the class', () => {
  it('exist as soon as the class is defined', () => {
    class Defined {
      @Tool({ description: 'x', parameters: { type: 'object', properties: {} } })
      run(): number {
        return 1;
      }
    }
    const metadataSymbol = (Symbol as { metadata?: symbol }).metadata;
    expect(typeof metadataSymbol).toBe('symbol');
    const reflect = Reflect as unknown as { getOwnMetadata(key: unknown, target: object): unknown };
    const standard = (Defined as unknown as Record<symbol, Record<symbol, unknown> | undefined>)[metadataSymbol!];
    const legacy = reflect.getOwnMetadata(Symbol.for('anytool.toolRecords'), Defined);
    // Standard decorators record in the class's Symbol.metadata; legacy ones in reflect-metadata.
    const legacyMode = typeof (Defined as unknown as { prototype: object }).prototype === 'object' && legacy !== undefined;
    const records = (legacyMode ? legacy : standard?.[Symbol.for('anytool.toolRecords')]) as Array<{ method: string }>;
    expect(records.map((r) => r.method)).toEqual(['run']);
    expect(legacyMode ? standard?.[Symbol.for('anytool.toolRecords')] : legacy).toBeUndefined();
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
});
