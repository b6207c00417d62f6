#!/usr/bin/env node
// `npm create anytool@latest <folder>` runs this. See `create-anytool --help`.
import { create } from '../src/create.mjs';

process.exitCode = await create(process.argv.slice(2));
