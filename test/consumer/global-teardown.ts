// jest's globalTeardown for the consumer project: removes the tarballs global-setup.ts packed, once the packing ended.
import { PACKING, PACKS_ENV, removeScratch } from './project';

// eslint-disable-next-line no-restricted-syntax -- jest's globalTeardown reads the default export.
export default async function removePacks(): Promise<void> {
  await ((globalThis as Record<symbol, unknown>)[PACKING] as Promise<unknown> | undefined);
  removeScratch(process.env[PACKS_ENV]);
  delete process.env[PACKS_ENV];
}
