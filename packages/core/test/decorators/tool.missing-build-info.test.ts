// A tool whose code the build step did not compile fails with one error, MISSING_SCHEMA, with
// one text that names the tool and the fix: under TC39 decorators and legacy ones alike (this
// file runs under both), for @Tool, defineTool, tool(fn) and BaseTool subclasses. Never a count
// of parameters, which JavaScript cannot give (Function.length stops at the first default).
// A value import of ExecutionContext: under legacy decorators emitDecoratorMetadata then records it as a design type.
// eslint-disable-next-line @typescript-eslint/consistent-type-imports
import { AnytoolError, BaseTool, ErrorCode, ExecutionContext, Tool, Toolset, defineTool, tool, toolsFrom } from '@anytool/core';
import { missingBuildInfoMessage } from '../helpers/missing-build-info';

function failure(make: () => unknown): { code: string; message: string } {
  try {
    make();
  } catch (error) {
    expect(error).toBeInstanceOf(AnytoolError);
    return { code: (error as AnytoolError).code, message: (error as AnytoolError).message };
  }
  throw new Error('expected an error');
}

const missing = (label: string): { code: string; message: string } => ({ code: ErrorCode.MissingSchema, message: missingBuildInfoMessage(label) });

describe('a tool the build step did not run on', () => {
  it('@Tool() methods with several parameters, defaults and a context parameter: MISSING_SCHEMA naming Class.method', () => {
    class Weather {
      /** Forecast for a city. */
      @Tool()
      forecast(city: string, days = 3, unit: 'celsius' | 'fahrenheit' = 'celsius'): string {
        return `${city} ${days} ${unit}`;
      }
    }
    class Notes {
      /** Remember a note for the run. */
      @Tool()
      remember(context: ExecutionContext, note: string, tags: string[]): string {
        return `${context.runId} ${note} ${tags.join()}`;
      }
    }
    class Described {
      @Tool({ description: 'Has a description, but no schema.' })
      run(a: number, b: number): number {
        return a + b;
      }
    }
    expect(failure(() => toolsFrom(new Weather()))).toEqual(missing('tool "forecast" (Weather.forecast)'));
    expect(failure(() => new Toolset(new Notes()))).toEqual(missing('tool "remember" (Notes.remember)'));
    expect(failure(() => new Toolset(new Described()))).toEqual(missing('tool "run" (Described.run)'));
  });

  it('defineTool(): the same error, naming Class.method', () => {
    class Inventory {
      count(item: string, warehouse = 'main'): number {
        return item.length + warehouse.length;
      }
    }
    defineTool(Inventory, 'count');
    expect(failure(() => new Toolset(new Inventory()))).toEqual(missing('tool "count" (Inventory.count)'));
  });

  it('tool(fn): the same error when the tool is made, naming the function (or showing an anonymous one)', () => {
    function search(query: string, limit = 5, offset = 0): string {
      return `${query} ${limit} ${offset}`;
    }
    expect(failure(() => tool(search))).toEqual(missing('tool "search" (function search)'));
    expect(failure(() => tool(search, { name: 'web_search', description: 'Search the web.' }))).toEqual(missing('tool "web_search" (function search)'));
    expect(failure(() => tool((a: number, b: number) => a * b))).toEqual(missing('the anonymous function given to tool() ((a, b) => a * b)'));
  });

  it('a BaseTool subclass: the same error when its definition is read', () => {
    class Clock extends BaseTool {
      execute(): string {
        return 'now';
      }
    }
    expect(failure(() => new Toolset(new Clock()))).toEqual(missing('tool "Clock" (class Clock)'));
  });

  it('the error names no parameter count', () => {
    class Many {
      @Tool()
      run(a: number, b = 1, c = 2, d = 3): number {
        return a + b + c + d;
      }
    }
    expect(failure(() => toolsFrom(new Many())).message).not.toMatch(/\d+ parameters?/);
  });
});
