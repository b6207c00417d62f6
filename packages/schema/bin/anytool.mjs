#!/usr/bin/env node
// The `anytool` command: build, schema, serve. See docs/build-setup.md.
// It loads the CommonJS build: importing the TypeScript compiler from ESM makes Node scan
// all of typescript.js for its export names, which costs about half a second per run.
import { createRequire } from 'node:module';

const { main } = createRequire(import.meta.url)('../dist/cjs/cli/main.js');
process.exitCode = await main(process.argv.slice(2));
