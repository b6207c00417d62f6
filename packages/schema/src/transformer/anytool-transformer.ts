import ts from 'typescript';
import { AnytoolError, ErrorCode } from '@anytool/core';
import { createTransformer, formatAnytoolDiagnostics } from './transformer.js';

/** Options of `anytoolTransformer`. */
export interface AnytoolTransformerOptions {
  /**
   * Receives the build step's diagnostics for each file. By default an error
   * stops the compilation (an `AnytoolError` with code `UNSUPPORTED_TYPE`,
   * whose message gives file, line and the fix) and warnings are ignored.
   */
  onDiagnostics?: (diagnostics: readonly ts.Diagnostic[]) => void;
}

/**
 * The `before` transformer: finds every tool in each file and passes its
 * build information (description, parameter schema, parameter names, context
 * position, output schema, argument preparers) into the decorator or call, so
 * the schema the model sees is computed from the same types that compile.
 *
 * `program` may be a function, for hosts whose program changes between files
 * (a language service).
 */
export function anytoolTransformer(program: ts.Program | (() => ts.Program), options: AnytoolTransformerOptions = {}): ts.TransformerFactory<ts.SourceFile> {
  return createTransformer(program, options.onDiagnostics ?? throwOnErrors);
}

function throwOnErrors(diagnostics: readonly ts.Diagnostic[]): void {
  const errors = diagnostics.filter((d) => d.category === ts.DiagnosticCategory.Error);
  if (errors.length > 0) throw new AnytoolError(ErrorCode.UnsupportedType, `anytool build step:\n${formatAnytoolDiagnostics(errors)}`);
}
