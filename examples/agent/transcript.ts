import { resultText, type ExecutionContext, type RunEvent, type Toolset } from '@anytool/core';
import type { ModelToolCall, Usage } from '@anytool/agent';

const WIDTH = 150;

function short(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > WIDTH ? `${flat.slice(0, WIDTH - 3)}...` : flat;
}

function args(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/**
 * Prints a run's events as they happen: model turns, each tool call with its
 * arguments and source, each result with its duration. Returns the unsubscribe function.
 */
export function printTranscript(context: ExecutionContext, toolset: Toolset, print: (line: string) => void = console.log): () => void {
  const started = Date.now();
  const at = (event: RunEvent): string => `[${(event.time - started).toFixed(1).padStart(7)} ms]`;
  return context.subscribe((event) => {
    switch (event.type) {
      case 'message': {
        if (event.role !== 'assistant') {
          // The user's question is printed in full; the instructions are clipped.
          print(`${at(event)} ${event.role === 'system' ? 'instructions' : 'user'}: ${event.role === 'user' ? event.text : short(event.text)}`);
          break;
        }
        const data = event.data as { step: number; toolCalls: ModelToolCall[]; usage: Usage };
        const tokens = `${data.usage.inputTokens} in / ${data.usage.outputTokens} out tokens`;
        if (data.toolCalls.length === 0) print(`${at(event)} model turn ${data.step} (${tokens}): the final answer`);
        else
          print(
            `${at(event)} model turn ${data.step} (${tokens}), asks for ${data.toolCalls.length} tool call(s)${event.text === '' ? '' : `: ${short(event.text)}`}`,
          );
        break;
      }
      case 'tool_call': {
        const source = toolset.get(event.tool)?.source ?? 'no such tool';
        print(`${at(event)}   -> ${event.tool} ${args(event.args)}  [${source}]  (${event.callId})`);
        break;
      }
      case 'tool_result': {
        const text = resultText(event.result);
        const status = event.result.isError ? `ERROR ${event.result.error?.code ?? ''}: ` : '';
        // A built-in tool ran on the provider's side, which reports no time.
        const took = event.durationMs === undefined ? `ran by ${event.ranBy ?? 'the provider'}` : `in ${event.durationMs.toFixed(1)} ms`;
        print(`${at(event)}   <- ${event.tool} ${took}: ${status}${short(text)}`);
        break;
      }
      case 'error':
        print(`${at(event)} run error ${event.code}: ${event.message}`);
        break;
      case 'diagnostic':
        print(`${at(event)} diagnostic ${event.code} (${event.source}): ${short(event.message)}`);
        break;
      case 'progress':
        print(
          `${at(event)}      progress ${event.progress}${event.total === undefined ? '' : `/${event.total}`}${event.message === undefined ? '' : ` ${event.message}`}`,
        );
        break;
    }
  });
}
