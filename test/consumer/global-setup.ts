// jest's globalSetup for the consumer project: every package packed once per run, shared by the consumer test files
// (each installs the same tarballs into projects of its own), instead of one `npm pack --workspaces` per file. The
// packing goes on while the first test files run (jest starts none before this returns): a consumer test file waits
// for it when it needs the tarballs (`packed` in project.ts).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PACKING, PACKS_ENV, packInBackground } from './project';

// eslint-disable-next-line no-restricted-syntax -- jest's globalSetup reads the default export.
export default function packOnce(): void {
  const into = mkdtempSync(join(tmpdir(), 'anytool-consumer-packs-'));
  // Read by the test files (run in workers started after this, which inherit the environment) and by global-teardown.ts.
  process.env[PACKS_ENV] = into;
  // global-teardown.ts waits for it (the two run in jest's main process).
  (globalThis as Record<symbol, unknown>)[PACKING] = packInBackground(into);
}
