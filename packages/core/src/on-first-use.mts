// The ES module bundle's on-first-use.cts (scripts/bundle-esm.mjs puts it in the helper's place): importing a
// CommonJS file from an ES module costs Node a lexer and a loader of their own, about 3% of an import of
// @anytool/mcp. `require` resolves from this file, as the helper's does. Where a user's bundler bundles this file it
// defines `require` and follows the literal `require('ajv')`, so the bundle holds ajv. The twins import Node's
// functions under names of their own: a user's bundle often declares `createRequire` in a banner.
import { createRequire as requireFrom } from 'node:module';
import type { AjvClasses } from './on-first-use.cjs';
import type * as OpenTelemetryApi from '@opentelemetry/api';

const nodeRequire = requireFrom(import.meta.url);

/* eslint-disable @typescript-eslint/no-require-imports -- loaded on first use, not at import */
export function requireAjv(): AjvClasses {
  const own = typeof require === 'function';
  const ajv = own ? require('ajv') : nodeRequire('ajv');
  const ajv2019 = own ? require('ajv/dist/2019') : nodeRequire('ajv/dist/2019');
  const ajv2020 = own ? require('ajv/dist/2020') : nodeRequire('ajv/dist/2020');
  const formats = own ? require('ajv-formats') : nodeRequire('ajv-formats');
  return { Ajv: ajv.Ajv, Ajv2019: ajv2019.Ajv2019, Ajv2020: ajv2020.Ajv2020, addFormats: formats.default };
}

export function requireOpenTelemetry(): typeof OpenTelemetryApi {
  return typeof require === 'function' ? require('@opentelemetry/api') : nodeRequire('@opentelemetry/api');
}
/* eslint-enable @typescript-eslint/no-require-imports */
