import type { Config } from 'jest';

type Project = NonNullable<Config['projects']>[number] & object;

const moduleNameMapper = {
  '^@anytool/(core|schema|mcp|agent)$': '<rootDir>/packages/$1/src/index.ts',
  '^(\\.{1,2}/.*)\\.js$': '$1',
  // @anytool/schema's one CommonJS source (`.cts`), imported by its output name (`.cjs`).
  '^(\\.{1,2}/typescript-modules)\\.cjs$': '$1.cts',
};

function project(displayName: string, testMatch: string[], tsconfig = '<rootDir>/tsconfig.test.json', extra: Partial<Project> = {}): Project {
  return {
    displayName,
    testMatch,
    testEnvironment: 'node',
    moduleNameMapper,
    transform: { '^.+\\.c?ts$': ['ts-jest', { tsconfig, diagnostics: { warnOnly: false } }] },
    ...extra,
  } as Project;
}

// One project per package. The decorator tests run twice: under TC39 standard
// decorators and under legacy experimentalDecorators + emitDecoratorMetadata.
const config: Config = {
  projects: [
    project('core', ['<rootDir>/packages/core/test/**/*.test.ts'], undefined, { testPathIgnorePatterns: ['\\.legacy\\.test\\.ts$'] }),
    project('core-legacy', ['<rootDir>/packages/core/test/decorators/**/*.test.ts'], '<rootDir>/tsconfig.test-legacy.json'),
    // The schema package's own tests compile through its build step (built first: `node scripts/build.mjs schema`).
    project('schema', ['<rootDir>/packages/schema/test/**/*.test.ts'], undefined, {
      transform: { '^.+\\.c?ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.test.json', diagnostics: { warnOnly: false }, astTransformers: { before: [{ path: '@anytool/schema/ts-jest' }] } }] },
    }),
    project('mcp', ['<rootDir>/packages/mcp/test/**/*.test.ts']),
    project('agent', ['<rootDir>/packages/agent/test/**/*.test.ts']),
    project('e2e', ['<rootDir>/test/**/*.test.ts']),
  ],
};

export default config;
