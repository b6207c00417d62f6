/**
 * `@anytool/core/code-mode`: the code runner (`run_code`), a tool whose argument is a
 * program against the toolset's typed API, run in a QuickJS sandbox. Its libraries are
 * optional peer dependencies, loaded on the first program:
 * `npm i quickjs-emscripten-core @jitl/quickjs-wasmfile-release-sync amaro`.
 *
 * Anything exported here is public API: add with care.
 *
 * @packageDocumentation
 */

export { CodeTool, DEFAULT_CODE_LIMITS, codeTool } from './code-tool.js';
export type { CodeInvoker, CodeToolOptions } from './code-tool.js';
export type { CodeApi, CodeApiFunction } from './declarations.js';
export { schemaType } from './declarations.js';
