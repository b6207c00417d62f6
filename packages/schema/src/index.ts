// The public API of @anytool/schema (build time). Anything exported here is public API: add with care.
// Generated code calls run-time helpers from '@anytool/core/runtime' (nothing of this package runs then).
// What the anytool command and the tests share goes through `@anytool/schema/internal`, not public API.

export { anytoolTransformer } from './transformer/anytool-transformer.js';
export { formatAnytoolDiagnostics } from './transformer/transformer.js';
export type { AnytoolTransformerOptions } from './transformer/anytool-transformer.js';
export { DiagnosticCode } from './transformer/tool-sites.js';
export { tspcTransformer } from './ways-in/ts-patch.js';
export type { TspcExtras } from './ways-in/ts-patch.js';
