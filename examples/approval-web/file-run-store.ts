// A RunStore on the file system: one JSON file a paused run, in a directory
// that outlives the process. Enough for one machine; many machines share a
// store in Redis (`RedisRunStore` from `@anytool/agent/redis`) or a database.
import { createHash, randomUUID } from 'node:crypto';
import { link, mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { RunState, RunStore, RunStoreSaveOptions } from '@anytool/agent';

interface Entry {
  pauseId: string;
  /** When the state expires (milliseconds since the epoch). */
  expires: number;
  state: RunState;
}

const WEEK_MS = 7 * 24 * 60 * 60 * 1000;

const code = (error: unknown): unknown => (error as NodeJS.ErrnoException | undefined)?.code;

export class FileRunStore implements RunStore {
  private readonly ttlMs: number;

  constructor(
    readonly dir: string,
    options: { ttlMs?: number } = {},
  ) {
    this.ttlMs = options.ttlMs ?? WEEK_MS;
  }

  /** Written whole, then renamed over the old file: a reader sees the old state or the new one, never half of one. */
  async save(state: RunState, options: RunStoreSaveOptions = {}): Promise<void> {
    const entry: Entry = { pauseId: state.pauseId, expires: Date.now() + (options.ttlMs ?? this.ttlMs), state };
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    const path = this.path(state.runId);
    const temp = `${path}.${randomUUID()}.tmp`;
    const file = await open(temp, 'w', 0o600);
    try {
      await file.writeFile(JSON.stringify(entry));
      // On disk before the run is reported paused: a crash of the machine right after does not lose it.
      await file.sync();
    } finally {
      await file.close();
    }
    await rename(temp, path);
  }

  async load(runId: string): Promise<RunState | undefined> {
    return (await this.read(this.path(runId)))?.state;
  }

  /**
   * The file is renamed to a name of this caller's own before it is read: a
   * rename is atomic, so of callers racing for the same run (two clicks, two
   * processes) exactly one gets it, and the others find nothing.
   */
  async take(runId: string, pauseId?: string): Promise<RunState | undefined> {
    const path = this.path(runId);
    const claimed = `${path}.${randomUUID()}.taken`;
    try {
      await rename(path, claimed);
    } catch (error) {
      if (code(error) === 'ENOENT') return undefined;
      throw error;
    }
    try {
      const entry = await this.read(claimed);
      if (entry === undefined) return undefined;
      if (pauseId !== undefined && entry.pauseId !== pauseId) {
        // A copy of an older pause asked: the newer one goes back (unless a save put another in its place meanwhile).
        await link(claimed, path).catch((error: unknown) => {
          if (code(error) !== 'EEXIST') throw error;
        });
        return undefined;
      }
      return entry.state;
    } finally {
      await rm(claimed, { force: true });
    }
  }

  async delete(runId: string): Promise<void> {
    await rm(this.path(runId), { force: true });
  }

  /** The run id comes from a browser: hashed, it names a file in `dir` and nothing else. */
  private path(runId: string): string {
    return join(this.dir, `${createHash('sha256').update(runId).digest('hex')}.json`);
  }

  /** The entry of a file, or undefined when there is none or it expired (an expired file is removed). */
  private async read(path: string): Promise<Entry | undefined> {
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (error) {
      if (code(error) === 'ENOENT') return undefined;
      throw error;
    }
    const entry = JSON.parse(text) as Entry;
    if (entry.expires > Date.now()) return entry;
    await rm(path, { force: true });
    return undefined;
  }
}
