// ts-jest `astTransformers` entry: `{ before: [{ path: '@anytool/schema/ts-jest' }] }`.
import { statSync } from 'node:fs';
import type ts from 'typescript';
import { AnytoolError, ErrorCode } from '@anytool/core';
import { anytoolTransformer } from '../transformer/anytool-transformer.js';

/** The part of ts-jest's compiler instance the transformer needs. */
export interface TsJestCompiler {
  program?: ts.Program | undefined;
  _languageService?: ts.LanguageService | undefined;
}

/** Read by ts-jest; part of its cache key. */
export const name = 'anytool-schema';

/** Read by ts-jest as part of its cache key: changes when the transformer is rebuilt. */
export const version = `0.1.0-${typeof __filename === 'string' ? Math.round(statSync(__filename).mtimeMs) : 0}`;

/**
 * Called by ts-jest for each compilation. ts-jest needs a full Program for this
 * (the default; not `isolatedModules`), and reads the newest one from its
 * language service.
 */
export function factory(compiler: TsJestCompiler): ts.TransformerFactory<ts.SourceFile> {
  return anytoolTransformer(() => {
    const program = compiler._languageService?.getProgram() ?? compiler.program;
    if (program === undefined) {
      throw new AnytoolError(ErrorCode.InvalidOptions, 'anytool: ts-jest gave the transformer no Program; remove `isolatedModules` from the ts-jest options so the build step can read types');
    }
    return program;
  });
}
