import type { McpStore } from '../store/store.js';
import type { McpTaskHandle } from './tasks.js';

/*
 * The handles of a client's running tasks, kept in an `McpStore` so that a
 * client started again (another process, or the same one after a crash) finds
 * the tasks its predecessor started and polls them to their end. Each handle
 * lives under a key of its own, deleted when its task ends; a list per server
 * names the task ids, so they can be found without listing keys.
 */

const PREFIX = 'mcp-client:';
/** How long a handle is kept when the server sets no limit on its task. */
const DEFAULT_TTL_MS = 7 * 24 * 3_600_000;
/** The most task ids a server's list remembers. */
const MAX_LISTED = 10_000;

const handleKey = (server: string, taskId: string): string => `${PREFIX}task:${encodeURIComponent(server)}:${taskId}`;
const listKey = (server: string): string => `${PREFIX}tasks:${encodeURIComponent(server)}`;

function ttlOf(handle: McpTaskHandle): number {
  const ttl = handle.ttlMs;
  return typeof ttl === 'number' && ttl > 0 ? ttl : DEFAULT_TTL_MS;
}

export class TaskHandles {
  constructor(private readonly store: McpStore) {}

  /** Keeps a new handle and lists its task under its server. */
  async add(handle: McpTaskHandle): Promise<void> {
    const ttl = ttlOf(handle);
    await this.store.set(handleKey(handle.server, handle.taskId), JSON.stringify(handle), ttl);
    await this.store.append(listKey(handle.server), handle.taskId, ttl, MAX_LISTED);
  }

  /** Writes a handle whose request state changed. */
  update(handle: McpTaskHandle): Promise<void> {
    return this.store.set(handleKey(handle.server, handle.taskId), JSON.stringify(handle), ttlOf(handle));
  }

  /** Forgets a task that ended. */
  remove(handle: McpTaskHandle): Promise<void> {
    return this.store.delete(handleKey(handle.server, handle.taskId));
  }

  /** The handles of a server's tasks that have not ended (as far as this store knows), oldest first. */
  async pending(server: string): Promise<McpTaskHandle[]> {
    const ids = new Set((await this.store.entriesAfter(listKey(server), 0)).map((entry) => entry.value));
    const handles: McpTaskHandle[] = [];
    for (const taskId of ids) {
      const text = await this.store.get(handleKey(server, taskId));
      if (text === undefined) continue;
      try {
        const handle = JSON.parse(text) as McpTaskHandle;
        if (handle.server === server && handle.taskId === taskId && typeof handle.tool === 'string') handles.push(handle);
      } catch {
        // A value this code did not write: not a handle.
      }
    }
    return handles;
  }
}
