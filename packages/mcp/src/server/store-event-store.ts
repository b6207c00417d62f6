import type { EventId, EventStore, JSONRPCMessage, StreamId } from '@modelcontextprotocol/server';
import type { McpStore } from '../store/store.js';

/** Options of `StoreEventStore`. */
export interface StoreEventStoreOptions {
  /** How long a stream's events are kept after its last one. Default 30 minutes. */
  ttlMs?: number;
  /** The most events kept per stream (the oldest are dropped). Default 1000. */
  maxEventsPerStream?: number;
}

const DEFAULT_TTL_MS = 30 * 60_000;
const DEFAULT_MAX_EVENTS = 1000;

/**
 * A resumable-stream `EventStore` (2025 era) kept in an `McpStore`: each SSE
 * stream is a list in the store, and an event id is the stream id with the
 * event's sequence number in it, so a replay reads only the events after it.
 * `serveMcp` uses one on its `store` when no `eventStore` is given.
 *
 * A 2025 session lives in the process that opened it, so its requests must
 * reach that process (sticky routing); kept in Redis, its events no longer
 * weigh on that process's memory and expire on their own.
 */
export class StoreEventStore implements EventStore {
  private readonly ttlMs: number;
  private readonly maxEvents: number;

  constructor(
    private readonly store: McpStore,
    options: StoreEventStoreOptions = {},
  ) {
    this.ttlMs = options.ttlMs ?? DEFAULT_TTL_MS;
    this.maxEvents = options.maxEventsPerStream ?? DEFAULT_MAX_EVENTS;
  }

  async storeEvent(streamId: StreamId, message: JSONRPCMessage): Promise<EventId> {
    const seq = await this.store.append(streamKey(streamId), JSON.stringify(message), this.ttlMs, this.maxEvents);
    return `${streamId}#${seq}`;
  }

  async getStreamIdForEventId(eventId: EventId): Promise<StreamId | undefined> {
    return parse(eventId)?.streamId;
  }

  async replayEventsAfter(lastEventId: EventId, { send }: { send: (eventId: EventId, message: JSONRPCMessage) => Promise<void> }): Promise<StreamId> {
    const last = parse(lastEventId);
    if (last === undefined) return '';
    for (const { seq, value } of await this.store.entriesAfter(streamKey(last.streamId), last.seq)) {
      await send(`${last.streamId}#${seq}`, JSON.parse(value) as JSONRPCMessage);
    }
    return last.streamId;
  }
}

function streamKey(streamId: StreamId): string {
  return `events/${streamId}`;
}

/** The stream and sequence number of an event id this store made (`<stream>#<seq>`), or undefined. */
function parse(eventId: EventId): { streamId: StreamId; seq: number } | undefined {
  const hash = eventId.lastIndexOf('#');
  if (hash <= 0) return undefined;
  const seq = Number(eventId.slice(hash + 1));
  if (!Number.isInteger(seq) || seq < 0) return undefined;
  return { streamId: eventId.slice(0, hash), seq };
}
