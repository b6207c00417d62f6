// Legacy (experimentalDecorators) only: parameter decorators and emitDecoratorMetadata.
// emitDecoratorMetadata writes parameter types through Reflect.metadata: the user loads the polyfill first.
import 'reflect-metadata';
import { Context, ExecutionContext, Tool, Toolset } from '@anytool/core';

describe('legacy decorators', () => {
  it('@Context() marks the parameter that receives the context', async () => {
    class Greeter {
      @Tool({ description: 'Greets.', parameters: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } })
      greet(@Context() context: ExecutionContext, args: { name: string }): string {
        return `hi ${args.name} (${context.runId})`;
      }
    }
    const result = await new Toolset(new Greeter()).invoke('greet', { name: 'Ada' }, new ExecutionContext({ runId: 'r9' }));
    expect(result.content).toEqual([{ type: 'text', text: 'hi Ada (r9)' }]);
  });

  it('a parameter typed ExecutionContext is found from emitDecoratorMetadata', async () => {
    class Typed {
      @Tool({ description: 'Run id.', parameters: { type: 'object', properties: {} } })
      whoami(_args: object, context: ExecutionContext): string {
        return context.runId;
      }
    }
    expect((await new Toolset(new Typed()).invoke('whoami', {}, new ExecutionContext({ runId: 'r5' }))).content).toEqual([{ type: 'text', text: 'r5' }]);
  });
});
