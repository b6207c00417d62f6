import type * as TS from 'typescript';
import { AnytoolError, ErrorCode } from '@anytool/core';
import { programTypeScript, supportedTypeScript, ts } from '../typescript.js';
import { createTransformer, formatAnytoolDiagnostics } from './transformer.js';

/** Options of `anytoolTransformer`. */
export interface AnytoolTransformerOptions {
  /**
   * Receives the build step's diagnostics for each file. By default an error
   * stops the compilation (an `AnytoolError` with code `UNSUPPORTED_TYPE`,
   * whose message gives file, line and the fix) and warnings are ignored.
   */
  onDiagnostics?: (diagnostics: readonly TS.Diagnostic[]) => void;
  /**
   * The TypeScript module that makes the program (`import * as ts from
   * 'typescript'` in the host). By default it is found among the TypeScript
   * modules loaded in the process. Checked at run time (5.5 through 6.0).
   */
  typescript?: object;
}

/**
 * The `before` transformer: finds every tool in each file and passes its
 * build information (description, parameter schema, parameter names, context
 * position, output schema, argument preparers) into the decorator or call, so
 * the schema the model sees is computed from the same types that compile.
 *
 * It works with the TypeScript that made the program, which must be 5.5
 * through 6.0: any other throws an `AnytoolError` (`UNSUPPORTED_TYPESCRIPT`)
 * naming the version found and the fix.
 *
 * `program` may be a function, for hosts whose program changes between files
 * (a language service). It is typed loosely, and the result takes the type
 * its place asks for (ts-node's `before` list, say): both belong to the
 * host's TypeScript, which may be another release than the one these
 * declarations name. Which one it is, and whether it is supported, is
 * checked at run time.
 */
export function anytoolTransformer<Factory = TS.TransformerFactory<TS.SourceFile>>(
  program: object | (() => object),
  options: AnytoolTransformerOptions = {},
): Factory {
  const hostProgram = program as TS.Program | (() => TS.Program);
  const typescript =
    options.typescript !== undefined
      ? supportedTypeScript(options.typescript, 'anytoolTransformer')
      : typeof hostProgram === 'function'
        ? undefined
        : programTypeScript(hostProgram, 'anytoolTransformer');
  return createTransformer(hostProgram, options.onDiagnostics ?? throwOnErrors, typescript) as Factory;
}

function throwOnErrors(diagnostics: readonly TS.Diagnostic[]): void {
  const errors = diagnostics.filter((d) => d.category === ts.DiagnosticCategory.Error);
  if (errors.length > 0) throw new AnytoolError(ErrorCode.UnsupportedType, `anytool build step:\n${formatAnytoolDiagnostics(errors)}`);
}
