// ts-jest `astTransformers` entry: `{ before: [{ path: '@anytool/schema/ts-jest' }] }`.
import { statSync } from 'node:fs';
import type * as TS from 'typescript';
import { AnytoolError, ErrorCode } from '@anytool/core';
import { anytoolTransformer } from '../transformer/anytool-transformer.js';
import { supportedTypeScript } from '../typescript.js';
import { VERSION } from '../version.js';

/** The part of ts-jest's compiler instance the transformer needs. */
export interface TsJestCompiler {
  program?: TS.Program | undefined;
  _languageService?: TS.LanguageService | undefined;
  /** ts-jest's configuration; `compilerModule` is the TypeScript it compiles with. */
  configSet?: { compilerModule?: unknown } | undefined;
}

/** Read by ts-jest; part of its cache key. */
export const name = 'anytool-schema';

/** Read by ts-jest as part of its cache key: changes when the transformer is rebuilt. */
export const version = `${VERSION}-${typeof __filename === 'string' ? Math.round(statSync(__filename).mtimeMs) : 0}`;

/**
 * Called by ts-jest for each compilation. ts-jest needs a full Program for this
 * (the default; not `isolatedModules`), and reads the newest one from its
 * language service. The transformer works with ts-jest's own TypeScript, which
 * must be 5.5 through 6.0.
 */
export function factory(compiler: TsJestCompiler): TS.TransformerFactory<TS.SourceFile> {
  const compilerModule = compiler.configSet?.compilerModule;
  const typescript = compilerModule === undefined ? undefined : supportedTypeScript(compilerModule, 'ts-jest');
  const getProgram = (): TS.Program => {
    const program = compiler._languageService?.getProgram() ?? compiler.program;
    if (program === undefined) {
      throw new AnytoolError(
        ErrorCode.InvalidProject,
        'anytool: ts-jest gave the transformer no Program; remove `isolatedModules` from the ts-jest options so the build step can read types',
      );
    }
    return program;
  };
  return anytoolTransformer(getProgram, typescript === undefined ? {} : { typescript });
}
