// jest's globalTeardown for the consumer project: removes the tarballs global-setup.ts packed.
import { PACKS_ENV, removeScratch } from './project';

// eslint-disable-next-line no-restricted-syntax -- jest's globalTeardown reads the default export.
export default function removePacks(): void {
  removeScratch(process.env[PACKS_ENV]);
  delete process.env[PACKS_ENV];
}
