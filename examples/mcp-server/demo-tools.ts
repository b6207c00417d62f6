import { type ExecutionContext, Tool, imageResult, type ToolResult } from '@anytool/core';
import { mcpSession } from '@anytool/mcp';
import { RED_PIXEL_PNG } from './conformance-tools.js';

const sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    }, { once: true });
  });

/** What a weather lookup returns: the tool's output schema says so, and clients get it as structured content. */
export interface Weather {
  city: string;
  temperatureC: number;
  conditions: 'sunny' | 'cloudy' | 'rain';
}

/**
 * Everyday tools served over MCP: structured output with an output schema,
 * an image, progress, and a long task that stops when the client cancels.
 */
export class DemoTools {
  /** Request ids of `long_task` calls that saw their signal abort (the client cancelled them). */
  readonly cancelled: string[] = [];

  @Tool({
    name: 'get_weather',
    title: 'Weather',
    description: 'The current weather in a city.',
    parameters: { type: 'object', properties: { city: { type: 'string', description: 'For example "Oslo"' } }, required: ['city'] },
    outputSchema: {
      type: 'object',
      properties: { city: { type: 'string' }, temperatureC: { type: 'number' }, conditions: { type: 'string', enum: ['sunny', 'cloudy', 'rain'] } },
      required: ['city', 'temperatureC', 'conditions'],
    },
    annotations: { readOnly: true, openWorld: true },
  })
  getWeather({ city }: { city: string }): Weather {
    const temperatureC = (city.length * 7) % 30;
    return { city, temperatureC, conditions: temperatureC > 20 ? 'sunny' : temperatureC > 10 ? 'cloudy' : 'rain' };
  }

  @Tool({ name: 'red_pixel', description: 'A 1x1 red PNG image.', parameters: { type: 'object', properties: {} } })
  redPixel(): ToolResult {
    return imageResult(RED_PIXEL_PNG);
  }

  @Tool({
    name: 'count_slowly',
    description: 'Counts to a number, reporting progress at each step.',
    parameters: { type: 'object', properties: { to: { type: 'integer', minimum: 1, maximum: 20 }, stepMs: { type: 'integer', minimum: 0, default: 10 } }, required: ['to'] },
    context: true,
  })
  async countSlowly({ to, stepMs = 10 }: { to: number; stepMs?: number }, context: ExecutionContext): Promise<string> {
    for (let i = 1; i <= to; i++) {
      await sleep(stepMs, context.signal);
      context.progress(i, to, `counted ${i}`);
    }
    await mcpSession(context)?.log('debug', `count_slowly counted to ${to}`);
    return `counted to ${to}`;
  }

  @Tool({
    name: 'long_task',
    description: 'Works until it is cancelled or `seconds` pass; stops as soon as the client cancels.',
    parameters: { type: 'object', properties: { seconds: { type: 'number', minimum: 0, maximum: 60, default: 30 } } },
    context: true,
  })
  async longTask({ seconds = 30 }: { seconds?: number }, context: ExecutionContext): Promise<string> {
    await sleep(seconds * 1000, context.signal);
    if (context.signal?.aborted) {
      this.cancelled.push(String(mcpSession(context)?.requestId ?? context.runId));
      return 'cancelled';
    }
    return `worked for ${seconds} s`;
  }

  @Tool({ name: 'cancelled_calls', description: 'The request ids of long_task calls that were cancelled, oldest first.', parameters: { type: 'object', properties: {} } })
  cancelledCalls(): { requestIds: string[] } {
    return { requestIds: [...this.cancelled] };
  }
}
