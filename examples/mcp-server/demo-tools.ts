// Everyday tools served over MCP. No JSON Schema is written by hand: `anytool build`
// reads the parameter types, return types and JSDoc (see docs/build-setup.md).
import { type ExecutionContext, Tool, imageResult, type ToolResult } from '@anytool/core';
import { mcpSession } from '@anytool/mcp';
import { RED_PIXEL_PNG } from './conformance-tools.js';

const sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });

/** What a weather lookup returns: it becomes the tool's output schema, and clients get it as structured content. */
export interface Weather {
  city: string;
  temperatureC: number;
  conditions: 'sunny' | 'cloudy' | 'rain';
}

/** The arguments of count_slowly. */
export interface CountArgs {
  /**
   * The number to count to.
   * @minimum 1
   * @maximum 20
   */
  to: number;
  /**
   * Milliseconds between steps.
   * @minimum 0
   */
  stepMs?: number;
}

/** The request ids of cancelled long_task calls. */
export interface Cancelled {
  requestIds: string[];
}

/**
 * Structured output with an output schema, an image, progress, and a long task
 * that stops as soon as the client cancels it.
 */
export class DemoTools {
  /** Request ids of `long_task` calls that saw their signal abort (the client cancelled them). */
  readonly cancelled: string[] = [];

  /**
   * The current weather in a city.
   * @param city For example "Oslo"
   */
  @Tool({ name: 'get_weather', title: 'Weather', annotations: { readOnly: true, openWorld: true } })
  getWeather(city: string): Weather {
    const temperatureC = (city.length * 7) % 30;
    return { city, temperatureC, conditions: temperatureC > 20 ? 'sunny' : temperatureC > 10 ? 'cloudy' : 'rain' };
  }

  /** A 1x1 red PNG image. */
  @Tool({ name: 'red_pixel' })
  redPixel(): ToolResult {
    return imageResult(RED_PIXEL_PNG);
  }

  /** Counts to a number, reporting progress at each step. */
  @Tool({ name: 'count_slowly' })
  async countSlowly({ to, stepMs = 10 }: CountArgs, context: ExecutionContext): Promise<string> {
    for (let i = 1; i <= to; i++) {
      await sleep(stepMs, context.signal);
      context.progress(i, to, `counted ${i}`);
    }
    await mcpSession(context)?.log('debug', `count_slowly counted to ${to}`);
    return `counted to ${to}`;
  }

  /**
   * Works until it is cancelled or the time is up; stops as soon as the client cancels.
   * @param seconds How long to work
   */
  @Tool({ name: 'long_task' })
  async longTask(context: ExecutionContext, seconds = 30): Promise<string> {
    await sleep(seconds * 1000, context.signal);
    if (context.signal?.aborted) {
      this.cancelled.push(String(mcpSession(context)?.requestId ?? context.runId));
      return 'cancelled';
    }
    return `worked for ${seconds} s`;
  }

  /** The request ids of long_task calls that were cancelled, oldest first. */
  @Tool({ name: 'cancelled_calls' })
  cancelledCalls(): Cancelled {
    return { requestIds: [...this.cancelled] };
  }
}
