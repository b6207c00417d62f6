import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import ts from 'typescript';
import { anytoolTransformer } from '@anytool/schema';
import { readProject } from '@anytool/schema/internal';

export const repoRoot = resolve(__dirname, '../../../..');
export const schemaRoot = resolve(__dirname, '../..');
export const fixtures = join(__dirname, '..', 'fixtures');
export const testTsconfig = join(repoRoot, 'tsconfig.test.json');
/**
 * tsconfig.test.json's compiler options with no files of its own: for `anytool schema` on one file, whose program is
 * the tsconfig's files and the file (with tsconfig.test.json's, every source and test of the repository).
 */
export const oneFileTsconfig = join(repoRoot, 'tsconfig.jest-schema.json');
export const anytoolBin = join(schemaRoot, 'bin', 'anytool.mjs');

/** A program over `files` with the repo's test compiler options, parsing all JSDoc like the build command. */
export function programFor(files: readonly string[], tsconfig = testTsconfig, emit = false): ts.Program {
  const parsed = readProject(['-p', tsconfig], { out: () => undefined, err: (t) => process.stderr.write(t) });
  if (parsed === undefined) throw new Error(`cannot read ${tsconfig}`);
  const options = { ...parsed.options, noEmit: !emit };
  const host = ts.createCompilerHost(options);
  host.jsDocParsingMode = ts.JSDocParsingMode.ParseAll;
  return ts.createProgram({ rootNames: [...files], options, host });
}

/**
 * A fresh directory inside the package (ignored by git), so built output resolves the workspace packages.
 * With `atRoot`, inside the repository's root instead, where `typescript` resolves to the repository's own
 * (inside the package it resolves to the one the package ships).
 */
export function scratchDir(name: string, atRoot = false): string {
  const base = atRoot ? join(repoRoot, '.tmp', 'schema-tests') : join(schemaRoot, '.tmp');
  mkdirSync(base, { recursive: true });
  const dir = mkdtempSync(join(base, `${name}-`));
  scratchDirs.push(dir);
  return dir;
}

const scratchDirs: string[] = [];

/** Removes the scratch directories this test file made (call from afterAll). */
export function removeScratchDirs(): void {
  for (const dir of scratchDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}

export function messages(diagnostics: readonly ts.Diagnostic[]): string[] {
  return diagnostics.map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
}

/** Emits one file of `program` in memory through the anytool transformer; returns the JavaScript and the build diagnostics. */
export function emitWithTransformer(program: ts.Program, file: string): { js: string; diagnostics: ts.Diagnostic[] } {
  let js = '';
  const diagnostics: ts.Diagnostic[] = [];
  const transformer = anytoolTransformer(program, { onDiagnostics: (d) => diagnostics.push(...d) });
  program.emit(
    program.getSourceFile(file),
    (name, text) => {
      if (name.endsWith('.js')) js = text;
    },
    undefined,
    false,
    { before: [transformer] },
  );
  return { js, diagnostics };
}
