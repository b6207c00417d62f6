import type { EventId, EventStore, StreamId } from '@modelcontextprotocol/server';

/**
 * One session's view of an event store shared by every legacy session. The
 * SDK names streams per session (every session's GET stream is
 * `_GET_stream`), so a shared store would let one session's `Last-Event-ID`
 * replay another session's events. Here stream ids and event ids carry the
 * session id: ids without it are refused, and the prefix is stripped on the
 * way back to the SDK.
 */
export function sessionEventStore(store: EventStore, sessionId: string): EventStore {
  const prefix = `${sessionId}/`;
  const own = (id: string): string | undefined => (id.startsWith(prefix) ? id.slice(prefix.length) : undefined);
  const view: EventStore = {
    async storeEvent(streamId, message) {
      return prefix + (await store.storeEvent(prefix + streamId, message));
    },
    async replayEventsAfter(lastEventId, { send }) {
      const inner = own(lastEventId);
      // An id from another session (or none of ours) replays nothing, like an unknown id.
      if (inner === undefined) return '';
      const streamId = await store.replayEventsAfter(inner, { send: (eventId, message) => send(prefix + eventId, message) });
      return own(streamId) ?? '';
    },
  };
  if (store.getStreamIdForEventId !== undefined) {
    const lookup = store.getStreamIdForEventId.bind(store);
    view.getStreamIdForEventId = async (eventId: EventId): Promise<StreamId | undefined> => {
      const inner = own(eventId);
      if (inner === undefined) return undefined;
      const streamId = await lookup(inner);
      return streamId === undefined ? undefined : own(streamId);
    };
  }
  return view;
}
