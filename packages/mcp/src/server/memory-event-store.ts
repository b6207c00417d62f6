import type { EventId, EventStore, JSONRPCMessage, StreamId } from '@modelcontextprotocol/server';

interface Stored {
  streamId: StreamId;
  message: JSONRPCMessage;
}

/**
 * An in-process `EventStore` for resumable streamable HTTP: the messages sent
 * on each SSE stream, kept so a client that lost its stream can reconnect with
 * `Last-Event-ID` and get what it missed. Keeps the newest `maxEvents` events
 * (10 000 by default) across all streams; use a shared store (Redis, a
 * database) when several processes serve one endpoint.
 */
export class MemoryEventStore implements EventStore {
  private readonly events = new Map<EventId, Stored>();
  private counter = 0;

  constructor(private readonly maxEvents = 10_000) {}

  async storeEvent(streamId: StreamId, message: JSONRPCMessage): Promise<EventId> {
    const eventId = `${streamId}:${(++this.counter).toString(36).padStart(8, '0')}`;
    this.events.set(eventId, { streamId, message });
    if (this.events.size > this.maxEvents) this.events.delete(this.events.keys().next().value as EventId);
    return eventId;
  }

  async getStreamIdForEventId(eventId: EventId): Promise<StreamId | undefined> {
    return this.events.get(eventId)?.streamId;
  }

  async replayEventsAfter(lastEventId: EventId, { send }: { send: (eventId: EventId, message: JSONRPCMessage) => Promise<void> }): Promise<StreamId> {
    const last = this.events.get(lastEventId);
    if (last === undefined) return '';
    let after = false;
    // Map iteration follows insertion order, which is the order the events were sent.
    for (const [eventId, event] of this.events) {
      if (eventId === lastEventId) after = true;
      else if (after && event.streamId === last.streamId) await send(eventId, event.message);
    }
    return last.streamId;
  }
}
