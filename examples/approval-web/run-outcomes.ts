// The answers of finished runs, one small file each, so a page reloaded after
// its run finished (or a second click that lost the race) can still show how
// the run ended. The paused runs themselves are in the run store.
import { createHash } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface RunOutcome {
  runId: string;
  stopReason: string;
  answer: string;
  finishedAt: string;
}

export class RunOutcomes {
  constructor(readonly dir: string) {}

  async save(outcome: RunOutcome): Promise<void> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    await writeFile(this.path(outcome.runId), JSON.stringify(outcome), { mode: 0o600 });
  }

  async load(runId: string): Promise<RunOutcome | undefined> {
    try {
      return JSON.parse(await readFile(this.path(runId), 'utf8')) as RunOutcome;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  private path(runId: string): string {
    return join(this.dir, `${createHash('sha256').update(runId).digest('hex')}.json`);
  }
}
