// The public API of @anytool/schema (build time). Anything exported here is public API: add with care.
// Generated code calls run-time helpers from '@anytool/core/runtime' (nothing of this package runs then).

export { anytoolTransformer } from './transformer/anytool-transformer.js';
export { formatAnytoolDiagnostics, RUNTIME_MODULE } from './transformer/transformer.js';
export type { AnytoolTransformerOptions } from './transformer/anytool-transformer.js';
export { analyzeSourceFile, DiagnosticCode } from './transformer/tool-sites.js';
export type { BuildInfoData, SourceAnalysis, ToolSite, PreparerSpec, ClassReference } from './transformer/tool-sites.js';
export { tspcTransformer } from './ways-in/ts-patch.js';
export type { TspcExtras } from './ways-in/ts-patch.js';
export { buildCommand, readProject } from './cli/build-command.js';
export type { CommandOutput } from './cli/build-command.js';
export { describeTools, schemaCommand } from './cli/schema-command.js';
export type { ToolDescription, ToolDescriptions } from './cli/schema-command.js';
export { main } from './cli/main.js';
export { createFileCompiler } from './compile/file-compiler.js';
export type { CompiledFile, FileCompiler, FileCompilerOptions } from './compile/file-compiler.js';
