#!/usr/bin/env node
// The `anytool` command: build, schema, serve. See docs/build-setup.md.
import { main } from '../dist/esm/cli/main.js';

process.exitCode = await main(process.argv.slice(2));
