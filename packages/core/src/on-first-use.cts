// CommonJS in both builds, so that `require` here is core's own (resolved from where core is installed) and works in
// the ES module build too: what core loads the first time it is needed rather than when it is imported. An import of
// @anytool/core (or of a package built on it) that never compiles a schema or traces never pays for ajv or the
// OpenTelemetry API.
import type * as OpenTelemetryApi from '@opentelemetry/api';
import type * as AjvModule from 'ajv';
import type * as Ajv2019Module from 'ajv/dist/2019';
import type * as Ajv2020Module from 'ajv/dist/2020';
import type * as AjvFormatsModule from 'ajv-formats';

/** ajv (its draft-07 dialect) and ajv-formats: loaded by the first schema compiled or checked. */
export interface AjvClasses {
  Ajv: typeof AjvModule.Ajv;
  addFormats: typeof AjvFormatsModule.default;
}

export function requireAjv(): AjvClasses {
  /* eslint-disable @typescript-eslint/no-require-imports -- loaded on first use, not at import */
  const ajv = require('ajv') as typeof AjvModule;
  const formats = require('ajv-formats') as typeof AjvFormatsModule;
  /* eslint-enable @typescript-eslint/no-require-imports */
  return { Ajv: ajv.Ajv, addFormats: formats.default };
}

/** ajv's 2019-09 dialect, loaded by the first schema that declares it. */
export function requireAjv2019(): typeof Ajv2019Module.Ajv2019 {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use, not at import
  return (require('ajv/dist/2019') as typeof Ajv2019Module).Ajv2019;
}

/** ajv's 2020-12 dialect, loaded by the first schema that declares it. */
export function requireAjv2020(): typeof Ajv2020Module.Ajv2020 {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use, not at import
  return (require('ajv/dist/2020') as typeof Ajv2020Module).Ajv2020;
}

/** The OpenTelemetry API, an optional peer dependency: throws when it is not installed (see tracing/otel.ts). */
export function requireOpenTelemetry(): typeof OpenTelemetryApi {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- an optional peer, loaded on first use
  return require('@opentelemetry/api') as typeof OpenTelemetryApi;
}
