// CommonJS in both builds, for a `require` that loads when called: Node's own modules that only some of the client's
// paths use (a child process for stdio, HTTP for an OAuth redirect or a compressed body, a worker thread for a costly
// schema, hashing, files for stored tokens or a process's children) load on the first use of that path, not when
// @anytool/mcp is imported. Each costs a few milliseconds of a process's start (http and crypto about 7 each, zlib
// and worker_threads 5); importing `node:fs` from an ES module also loads its promises API, readline and os.
import type * as ChildProcess from 'node:child_process';
import type * as Crypto from 'node:crypto';
import type * as Fs from 'node:fs';
import type * as FsPromises from 'node:fs/promises';
import type * as Http from 'node:http';
import type * as WorkerThreads from 'node:worker_threads';
import type * as Zlib from 'node:zlib';

/** A module loaded by the first call, the same one after. */
function onFirstUse<T>(load: () => T): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= load());
}

/* eslint-disable @typescript-eslint/no-require-imports -- loaded on first use, not at import */
export const childProcess = onFirstUse((): typeof ChildProcess => require('node:child_process'));
export const crypto = onFirstUse((): typeof Crypto => require('node:crypto'));
export const fs = onFirstUse((): typeof Fs => require('node:fs'));
export const fsPromises = onFirstUse((): typeof FsPromises => require('node:fs/promises'));
export const http = onFirstUse((): typeof Http => require('node:http'));
export const workerThreads = onFirstUse((): typeof WorkerThreads => require('node:worker_threads'));
export const zlib = onFirstUse((): typeof Zlib => require('node:zlib'));
/* eslint-enable @typescript-eslint/no-require-imports */
