// The ES module bundle's builtins.cts (see core's on-first-use.mts for why): Node's own modules that
// only some of the client's paths use load on the first use of that path.
import { createRequire as requireFrom } from 'node:module';
import type {
  childProcess as ChildProcess,
  crypto as Crypto,
  fsPromises as FsPromises,
  http as Http,
  workerThreads as WorkerThreads,
  zlib as Zlib,
} from './builtins.cjs';

const nodeRequire = requireFrom(import.meta.url);

/** Node's module `id`, loaded by the first call, the same one after. */
function onFirstUse<T>(id: string): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= nodeRequire(id) as T);
}

export const childProcess: typeof ChildProcess = onFirstUse('node:child_process');
export const crypto: typeof Crypto = onFirstUse('node:crypto');
export const fsPromises: typeof FsPromises = onFirstUse('node:fs/promises');
export const http: typeof Http = onFirstUse('node:http');
export const workerThreads: typeof WorkerThreads = onFirstUse('node:worker_threads');
export const zlib: typeof Zlib = onFirstUse('node:zlib');
