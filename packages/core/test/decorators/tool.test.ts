import { ExecutionContext, Tool, Toolset, defineTool, toolsFrom, ErrorCode, AnytoolError } from '@anytool/core';

const citySchema = {
  type: 'object',
  properties: { city: { type: 'string' }, unit: { type: 'string', enum: ['celsius', 'fahrenheit'], default: 'celsius' } },
  required: ['city'],
} as const;

class WeatherTools {
  calls = 0;

  @Tool({ description: 'Current weather for a city.' }, { parameters: citySchema, paramNames: ['city', 'unit'] })
  getWeather(city: string, unit = 'celsius'): string {
    this.calls++;
    return `${city}: 21 ${unit}`;
  }

  @Tool(
    { name: 'remember', description: 'Store a note in the run state.', context: { state: { read: ['notes'], write: ['notes'] } } },
    { parameters: { type: 'object', properties: { note: { type: 'string' } }, required: ['note'] }, paramNames: ['note'], contextIndex: 0 },
  )
  remember(context: ExecutionContext, note: string): number {
    const notes = (context.state.get('notes') as string[] | undefined) ?? [];
    notes.push(note);
    context.state.set('notes', notes);
    return notes.length;
  }

  notATool(): string {
    return 'no';
  }
}

class MoreWeather extends WeatherTools {
  @Tool(
    { description: 'Forecast for tomorrow.' },
    { parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] }, paramNames: ['city'] },
  )
  forecast(city: string): string {
    return `${city}: sunny`;
  }
}

describe('@Tool methods', () => {
  it('records tools that toolsFrom binds to the instance, inherited ones included', async () => {
    const instance = new MoreWeather();
    const tools = toolsFrom(instance);
    expect(tools.map((t) => t.name).sort()).toEqual(['forecast', 'getWeather', 'remember']);
    const toolset = new Toolset(instance);
    const context = new ExecutionContext();
    const result = await toolset.invoke('getWeather', { city: 'Oslo' }, context);
    expect(result).toMatchObject({ isError: false, content: [{ type: 'text', text: 'Oslo: 21 celsius' }] });
    expect(instance.calls).toBe(1);
    expect(await toolset.invoke('remember', { note: 'a' }, context)).toMatchObject({ structured: 1 });
    expect(await toolset.invoke('remember', { note: 'b' }, context)).toMatchObject({ structured: 2 });
    expect(context.state.get('notes')).toEqual(['a', 'b']);
    expect((await toolset.invoke('forecast', { city: 'Bergen' }, context)).content).toEqual([{ type: 'text', text: 'Bergen: sunny' }]);
  });

  it('a decorated method with no schema fails at registration with a coded error naming the method and the fix', () => {
    class NoSchema {
      @Tool({ description: 'Has no schema.' })
      run(): string {
        return 'x';
      }
    }
    let caught: unknown;
    try {
      toolsFrom(new NoSchema());
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(AnytoolError);
    expect((caught as AnytoolError).code).toBe(ErrorCode.MissingSchema);
    expect((caught as AnytoolError).message).toMatch(/NoSchema\.run/);
    expect((caught as AnytoolError).message).toMatch(/build step/);
  });

  it('defineTool is the imperative twin of @Tool', async () => {
    class Plain {
      double(value: number): number {
        return value * 2;
      }
    }
    defineTool(
      Plain,
      'double',
      { description: 'Double a number.' },
      { parameters: { type: 'object', properties: { value: { type: 'number' } }, required: ['value'] }, paramNames: ['value'] },
    );
    const result = await new Toolset(new Plain()).invoke('double', { value: 21 });
    expect(result.structured).toBe(42);
  });

  it('places the context where @Context() or defineContext() says when arguments come as one object', async () => {
    class Explicit {
      whoami(args: { greeting: string }, context: ExecutionContext): string {
        return `${args.greeting} from ${context.runId}`;
      }
    }
    defineTool(Explicit, 'whoami', {
      description: 'Greets.',
      parameters: { type: 'object', properties: { greeting: { type: 'string' } }, required: ['greeting'] },
    });
    defineContext(Explicit, 'whoami', 1);
    const context = new ExecutionContext({ runId: 'run-7' });
    expect((await new Toolset(new Explicit()).invoke('whoami', { greeting: 'hi' }, context)).content).toEqual([{ type: 'text', text: 'hi from run-7' }]);
  });
});

import { defineContext } from '@anytool/core';
