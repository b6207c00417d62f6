import { AnytoolError, ErrorCode } from './errors.js';

/** The default of `keepEvents`: the last 10,000 events of a run (5,000 tool calls). */
export const DEFAULT_KEEP_EVENTS = 10_000;

/**
 * The events a run keeps, oldest first: every event up to `keep`, then the
 * last `keep` in a ring (each new event overwrites the oldest and counts as
 * dropped). So a run's memory stays bounded however many calls it makes.
 *
 * Until the first drop, `events` is the very array the events were pushed to,
 * as the log always was: a reader holding it sees later events arrive. After
 * it, `events` is an ordered copy of the ring, made on the first read after a
 * change (so a read costs up to `keep` copies once per change, not per read).
 */
export class RunLog<Event> {
  /** How many events are kept: a whole number, or `Infinity` for all. */
  readonly keep: number;
  /** Events recorded that are no longer kept. */
  dropped = 0;
  #items: Event[] = [];
  /** Once the ring is full: the slot of the oldest event, which the next one overwrites. */
  #oldest = 0;
  /** The ordered copy of a full ring, undefined when an event came since it was made. */
  #ordered: readonly Event[] | undefined;

  constructor(keep: number) {
    this.keep = keep;
  }

  push(event: Event): void {
    const items = this.#items;
    if (items.length < this.keep) {
      items.push(event);
      return;
    }
    this.dropped++;
    if (this.keep === 0) return;
    // The array readers may hold stays as it was (ordered): the ring is a copy of it.
    const ring = this.dropped === 1 ? (this.#items = items.slice()) : items;
    const slot = this.#oldest;
    ring[slot] = event;
    this.#oldest = slot + 1 === this.keep ? 0 : slot + 1;
    this.#ordered = undefined;
  }

  /** The kept events, oldest first. */
  get events(): readonly Event[] {
    if (this.dropped === 0 || this.keep === 0) return this.#items;
    if (this.#ordered !== undefined) return this.#ordered;
    const items = this.#items;
    const oldest = this.#oldest;
    return (this.#ordered = Object.freeze(oldest === 0 ? items.slice() : items.slice(oldest).concat(items.slice(0, oldest))));
  }
}

/** The `keepEvents` option as a count (`Infinity` for 'all'); throws `INVALID_OPTIONS` for anything else. */
export function checkKeepEvents(value: unknown): number {
  if (value === undefined) return DEFAULT_KEEP_EVENTS;
  if (value === 'all') return Infinity;
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return value;
  throw new AnytoolError(
    ErrorCode.InvalidOptions,
    `new ExecutionContext(): keepEvents must be a whole number of events from 0 (the last ones are kept) or 'all', got ${typeof value === 'string' ? JSON.stringify(value) : String(value)}`,
  );
}
