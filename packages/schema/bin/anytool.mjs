#!/usr/bin/env node
// The `anytool` command: build, schema, list, call, serve. See `anytool --help`.
// It loads the CommonJS build: importing the TypeScript compiler from ESM makes Node scan
// all of typescript.js for its export names, which costs about half a second per run.
import module, { createRequire } from 'node:module';

// Node 22.1 and later keep the compiled code of the modules a process loads on disk, as tsc does (TypeScript 5.7
// on): a later build reads TypeScript's nine megabytes compiled instead of compiling them again. Quiet where it is
// not available (Node 20) or turned off (NODE_DISABLE_COMPILE_CACHE=1).
module.enableCompileCache?.();
const require = createRequire(import.meta.url);
const { main } = require('../dist/cjs/cli/main.js');
const code = await main(process.argv.slice(2), undefined, { version: require('../package.json').version });
process.exitCode = code;
// A finished command ends even if a loaded module left handles open (timers, connections).
setTimeout(() => process.exit(code), 100).unref();
