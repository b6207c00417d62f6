#!/usr/bin/env node
// The `anytool` command: build, schema, list, call, serve. See `anytool --help`.
// It loads the CommonJS build: importing the TypeScript compiler from ESM makes Node scan
// all of typescript.js for its export names, which costs about half a second per run.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { main } = require('../dist/cjs/cli/main.js');
const code = await main(process.argv.slice(2), undefined, { version: require('../package.json').version });
process.exitCode = code;
// A finished command ends even if a loaded module left handles open (timers, connections).
setTimeout(() => process.exit(code), 100).unref();
