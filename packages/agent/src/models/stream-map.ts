import type { ModelStreamEvent } from '../model.js';

/** What one chunk of a provider's stream becomes: no event, one, or several (a call's start with its first arguments). */
export type MappedChunk = ModelStreamEvent | readonly ModelStreamEvent[] | undefined;

const DONE: IteratorReturnResult<undefined> = { value: undefined, done: true };

/**
 * A mapping iterator over a provider client's stream, no generator in between:
 * a streamed token costs about what reading the client's stream directly does.
 * `open` sends the request on the first `next()`; each chunk maps to its events;
 * when the client's stream ends, `end` gives the closing event (the turn put
 * together from the chunks), if the chunks did not already carry it. The
 * stream finishes after a `response` event; `return()` (a consumer that stops
 * early) ends the client's stream, which aborts its HTTP request.
 */
export function mapStream<C>(open: () => Promise<AsyncIterator<C>>, map: (chunk: C) => MappedChunk, end: () => ModelStreamEvent | undefined): AsyncIterator<ModelStreamEvent, undefined> {
  let source: AsyncIterator<C> | undefined;
  let finished = false;
  let pending: readonly ModelStreamEvent[] = [];
  let head = 0;

  const emit = (event: ModelStreamEvent): IteratorYieldResult<ModelStreamEvent> => {
    if (event.type === 'response') finished = true;
    return { value: event, done: false };
  };
  // A `then` on the client's next(), not an async function: one promise a token fewer.
  const pull = (from: AsyncIterator<C>): Promise<IteratorResult<ModelStreamEvent, undefined>> =>
    from.next().then((step) => {
      if (step.done === true) {
        const last = end();
        if (last === undefined) {
          finished = true;
          return DONE;
        }
        return emit(last);
      }
      const mapped = map(step.value);
      if (mapped === undefined) return pull(from);
      if (!isList(mapped)) return emit(mapped);
      pending = mapped;
      head = 0;
      return head < pending.length ? emit(pending[head++]!) : pull(from);
    });

  return {
    next: () => {
      if (head < pending.length) return Promise.resolve(emit(pending[head++]!));
      if (finished) return Promise.resolve(DONE);
      if (source === undefined) return open().then((opened) => pull((source = opened)));
      return pull(source);
    },
    return: async () => {
      finished = true;
      await source?.return?.();
      return DONE;
    },
  };
}

function isList(mapped: ModelStreamEvent | readonly ModelStreamEvent[]): mapped is readonly ModelStreamEvent[] {
  return Array.isArray(mapped);
}
