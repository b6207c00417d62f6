import { join } from 'node:path';
import ts from 'typescript';
import { AnytoolError, ErrorCode } from '@anytool/core';
import { anytoolTransformer } from '@anytool/schema';
import { isSupportedVersion, typeScriptOf, typeScriptProblem, withTypeScript, ts as current } from '../src/typescript';
import { factory } from '../src/ways-in/ts-jest';
import { tspcTransformer } from '../src/ways-in/ts-patch';
import { fixtures, programFor } from './helpers';

// Which TypeScript the build step works with. Installed releases (5.4 to 7.0) are compiled
// against in typescript.versions.test.ts; here, the rules and each way in's refusal.

const file = join(fixtures, 'names', 'tools.ts');

describe('supported TypeScript releases', () => {
  it.each([
    ['5.4.5', false],
    ['5.5.2', true],
    ['5.8.3', true],
    ['5.9.3', true],
    ['6.0.3', true],
    ['6.0.0-dev.20260101', true],
    ['6.1.0', false],
    ['7.0.2', false],
  ])('%s: %s', (version, supported) => {
    expect(isSupportedVersion(version)).toBe(supported);
  });

  it('a TypeScript 7 module (it exports only its version) is refused with the range and the fix', () => {
    const problem = typeScriptProblem({ version: '7.0.2', versionMajorMinor: '7.0' }, 'ts-jest');
    expect(problem).toMatch(/^anytool \(ts-jest\): TypeScript 7\.0\.2 has no JavaScript compiler API/);
    expect(problem).toMatch(/supports TypeScript 5\.5 through 6\.0/);
    expect(problem).toMatch(/npm i -D typescript@~5\.9, or typescript@~6\.0/);
    expect(problem).toMatch(/`anytool build`/);
    expect(typeScriptProblem({ ...ts, version: '5.4.5' }, 'ts-node')).toMatch(/TypeScript 5\.4\.5 is older than 5\.5/);
    expect(typeScriptProblem({ ...ts, version: '6.1.0' }, 'ts-node')).toMatch(/TypeScript 6\.1\.0 is newer than this build step/);
    expect(typeScriptProblem(ts, 'ts-node')).toBeUndefined();
  });
});

describe('the TypeScript that made a program', () => {
  it('is found among the loaded ones, by the constructors of its nodes', () => {
    const program = programFor([file]);
    expect(typeScriptOf(program)).toBe(ts);
  });

  it('is read by every module of the build step only while a call has chosen it', () => {
    expect(() => current.SyntaxKind).toThrow(/read outside withTypeScript/);
    expect(withTypeScript(ts, () => current.SyntaxKind)).toBe(ts.SyntaxKind);
  });
});

describe('each way in refuses an unsupported TypeScript, naming it', () => {
  const old = { ...ts, version: '5.4.5' } as typeof ts;
  const program = programFor([file]);

  it('ts-jest: an AnytoolError from the factory', () => {
    let error: unknown;
    try {
      factory({ configSet: { compilerModule: old }, program });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(AnytoolError);
    expect((error as AnytoolError).code).toBe(ErrorCode.UnsupportedTypeScript);
    expect((error as AnytoolError).message).toMatch(
      /anytool \(ts-jest\): TypeScript 5\.4\.5 is older than 5\.5, and the build step supports TypeScript 5\.5 through 6\.0/,
    );
  });

  it('ts-patch: an ANYTOOL91006 error diagnostic in tspc, and the files are left as they are', () => {
    const added: ts.Diagnostic[] = [];
    const transformer = tspcTransformer(program, {}, { ts: old, addDiagnostic: (d) => added.push(d) });
    expect(added).toHaveLength(1);
    expect(added[0]).toMatchObject({ code: 91006, category: ts.DiagnosticCategory.Error });
    expect(added[0]!.messageText).toMatch(/anytool \(ts-patch\): TypeScript 5\.4\.5 is older than 5\.5/);
    const source = program.getSourceFile(file)!;
    expect(transformer({} as ts.TransformationContext)(source)).toBe(source);
  });

  it('ts-node and other hosts: anytoolTransformer throws when given one', () => {
    expect(() => anytoolTransformer(program, { typescript: old })).toThrow(expect.objectContaining({ code: ErrorCode.UnsupportedTypeScript }));
  });
});
