// ts-patch (`tspc`) plugin: { "transform": "@anytool/schema/ts-patch", "import": "tspcTransformer" }.
import type ts from 'typescript';
import { anytoolTransformer } from '../transformer/anytool-transformer.js';

/** What ts-patch passes as its third argument to a program transformer. */
export interface TspcExtras {
  addDiagnostic?: (diagnostic: ts.Diagnostic) => number;
}

/**
 * The ts-patch plugin shape: `(program, pluginConfig, extras)`. Diagnostics go
 * to tspc's own output (errors fail the build like type errors).
 */
export function tspcTransformer(program: ts.Program, _config?: unknown, extras?: TspcExtras): ts.TransformerFactory<ts.SourceFile> {
  const add = extras?.addDiagnostic;
  return anytoolTransformer(program, add === undefined ? {} : { onDiagnostics: (diagnostics) => diagnostics.forEach((d) => add(d)) });
}
