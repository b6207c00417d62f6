import { OpenAI } from 'openai';
import type { EventSourceMessage } from 'eventsource-parser';

/**
 * What each SSE message of an OpenAI stream (Responses or Chat Completions) is, as
 * the client's stream reads it: a `[DONE]` message ends the events (the rest is
 * skipped), a message whose data has an `error` is thrown as the client's
 * `APIError`, anything else is the event. One function per stream: it keeps `[DONE]`.
 */
export function openAIStreamEvents<T>(headers: Headers): (message: EventSourceMessage) => T | undefined {
  let done = false;
  return (message) => {
    if (done) return undefined;
    if (message.data.startsWith('[DONE]')) {
      done = true;
      return undefined;
    }
    const data = JSON.parse(message.data) as (T & { error?: unknown }) | null;
    if (data?.error) throw new OpenAI.APIError(undefined, data.error as object, undefined, headers);
    return data as T;
  };
}
