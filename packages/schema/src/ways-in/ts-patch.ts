// ts-patch (`tspc`) plugin: { "transform": "@anytool/schema/ts-patch", "import": "tspcTransformer" }.
import type * as TS from 'typescript';
import { anytoolTransformer } from '../transformer/anytool-transformer.js';
import { DiagnosticCode } from '../transformer/tool-sites.js';
import { typeScriptProblem } from '../typescript.js';

/** What ts-patch passes as its third argument to a program transformer. */
export interface TspcExtras {
  /** The TypeScript that tspc compiles with. */
  ts?: typeof TS;
  addDiagnostic?: (diagnostic: TS.Diagnostic) => number;
}

/**
 * The ts-patch plugin shape: `(program, pluginConfig, extras)`. Diagnostics go
 * to tspc's own output (errors fail the build like type errors). It works with
 * tspc's TypeScript (`extras.ts`), which must be 5.5 through 6.0: any other is a
 * build error (`ANYTOOL91006`) that names the version found and the fix.
 */
export function tspcTransformer(program: TS.Program, _config?: unknown, extras?: TspcExtras): TS.TransformerFactory<TS.SourceFile> {
  const add = extras?.addDiagnostic;
  const host = extras?.ts;
  const problem = host === undefined ? undefined : typeScriptProblem(host, 'ts-patch');
  if (problem !== undefined && add !== undefined) {
    // Category 1 is Error in every TypeScript release; the unsupported one's enums are not to be trusted.
    add({
      file: undefined,
      start: undefined,
      length: undefined,
      category: 1,
      code: DiagnosticCode.UnsupportedTypeScript,
      messageText: problem,
      source: 'anytool',
    });
    return () => (sourceFile) => sourceFile;
  }
  const options = add === undefined ? {} : { onDiagnostics: (diagnostics: readonly TS.Diagnostic[]) => diagnostics.forEach((d) => add(d)) };
  return anytoolTransformer(program, host === undefined ? options : { ...options, typescript: host });
}
