// jest's globalSetup for the consumer project: every package packed once per run, shared by the consumer test files
// (each installs the same tarballs into projects of its own), instead of one `npm pack --workspaces` per file.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PACKS_ENV, packAll } from './project';

// eslint-disable-next-line no-restricted-syntax -- jest's globalSetup reads the default export.
export default async function packOnce(): Promise<void> {
  const into = mkdtempSync(join(tmpdir(), 'anytool-consumer-packs-'));
  await packAll(into);
  // Read by the test files (run in workers started after this, which inherit the environment) and by global-teardown.ts.
  process.env[PACKS_ENV] = into;
}
