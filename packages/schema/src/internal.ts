/**
 * `@anytool/schema/internal`: the pieces of the build step that the `anytool` command and
 * the tests use directly (the source analyzer, the project reader, the command line).
 *
 * Not public API. Nothing here follows semantic versioning: any name may change or go
 * away in any release, patch releases included. Import from `@anytool/schema` (or one of
 * its documented subpaths) instead; what a user needs is exported there.
 *
 * @packageDocumentation
 */

export { main } from './cli/main.js';
export type { MainOptions } from './cli/main.js';
export { buildCommand, readProject } from './cli/build-command.js';
export type { CommandOutput } from './cli/build-command.js';
export { describeTools, schemaCommand } from './cli/schema-command.js';
export type { ToolDescription, ToolDescriptions } from './cli/schema-command.js';
export { createFileCompiler } from './compile/file-compiler.js';
export type { CompiledFile, FileCompiler, FileCompilerOptions } from './compile/file-compiler.js';
export { analyzeSourceFile } from './transformer/tool-sites.js';
export type { BuildInfoData, ClassReference, PreparerSpec, SourceAnalysis, ToolSite } from './transformer/tool-sites.js';
export { RUNTIME_MODULE } from './transformer/transformer.js';
