/**
 * TypeScript to JavaScript for the sandbox, on the host, with `amaro` (the type
 * stripper Node itself ships, SWC compiled to WebAssembly): strip-only, so every
 * type becomes blanks and each line of the program keeps its number, and the
 * line an error names is the line the model wrote.
 */
import { AnytoolError, ErrorCode, describeError } from '../errors.js';

type TransformSync = (source: string, options: { mode: 'strip-only' }) => { code: string };

let loading: Promise<TransformSync> | undefined;

export function loadStripper(): Promise<TransformSync> {
  return (loading ??= (async () => {
    try {
      const loaded = (await import('amaro')) as { transformSync?: TransformSync; default?: { transformSync?: TransformSync } };
      const transform = loaded.transformSync ?? loaded.default?.transformSync;
      if (typeof transform !== 'function') throw new Error('amaro exports no transformSync()');
      return transform;
    } catch (error) {
      loading = undefined;
      throw new AnytoolError(
        ErrorCode.MissingDependency,
        `code mode strips the types of a program with amaro, which is not installed (${describeError(error).split('\n')[0]!}); install it next to @anytool/core: npm i amaro`,
        { cause: error },
      );
    }
  })());
}

/** The program as the sandbox runs it: wrapped in an async function (so it may `await` and `return`), types stripped. */
export function wrapProgram(strip: TransformSync, code: string): { js: string } | { error: string } {
  // The wrapper shares the program's first line: line N of the program stays line N.
  const wrapped = `(async () => { ${code}\n})()`;
  try {
    return { js: strip(wrapped, { mode: 'strip-only' }).code };
  } catch (error) {
    const e = error as { message?: unknown; startLine?: unknown; code?: unknown };
    const message = typeof e?.message === 'string' ? e.message : describeError(error);
    const line = typeof e?.startLine === 'number' ? ` (line ${e.startLine})` : '';
    const hint = e?.code === 'UnsupportedSyntax' ? ' Types are stripped, not compiled: use plain objects instead of enums and namespaces.' : '';
    return { error: `The program does not parse${line}: ${message}.${hint}` };
  }
}
