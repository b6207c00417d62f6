import { availableParallelism } from 'node:os';
import type { Config } from 'jest';

type Project = NonNullable<Config['projects']>[number] & object;

const moduleNameMapper = {
  '^@anytool/(core|schema|mcp|agent)$': '<rootDir>/packages/$1/src/index.ts',
  // What compiled tools import at run time, from the same sources as the rest of core.
  '^@anytool/core/runtime$': '<rootDir>/packages/core/src/runtime.ts',
  // Code mode's runner, a subpath of its own (its sandbox libraries are optional peers).
  '^@anytool/core/code-mode$': '<rootDir>/packages/core/src/code-mode/index.ts',
  // What the packages share with each other and not with users (not public API).
  '^@anytool/(core|schema|mcp)/internal$': '<rootDir>/packages/$1/src/internal.ts',
  '^(\\.{1,2}/.*)\\.js$': '$1',
  // @anytool/schema's CommonJS sources (`.cts`: TypeScript's loader, unplugin's), imported by their output names (`.cjs`).
  '^(\\.{1,2}/(?:typescript-modules|unplugin-module))\\.cjs$': '$1.cts',
  // @anytool/mcp's CommonJS helper that loads the server on first use (server-modules.cts), by its output name too.
  '^\\.{1,2}/(.*/)?server-modules\\.cjs$': '<rootDir>/packages/mcp/src/server/server-modules.cts',
  // @anytool/core's CommonJS helper that loads ajv and the OpenTelemetry API on first use (on-first-use.cts), likewise.
  // Both by absolute path: a built copy of a package that a test loads by path (two-copies, brands) asks for them too.
  '^\\.{1,2}/(.*/)?on-first-use\\.cjs$': '<rootDir>/packages/core/src/on-first-use.cts',
  // @anytool/mcp's CommonJS helper that loads RE2JS on first use (re2.cts).
  '^\\./re2\\.cjs$': '<rootDir>/packages/mcp/src/shared/re2.cts',
  // @anytool/mcp's CommonJS helper that loads Node's modules of some paths only on first use (builtins.cts).
  '^\\.{1,2}/(.*/)?builtins\\.cjs$': '<rootDir>/packages/mcp/src/shared/builtins.cts',
  // Where @anytool/mcp's validation worker is: its compiled file, which a worker thread can run (build first).
  '^\\./validation-worker-file\\.cjs$': '<rootDir>/packages/mcp/dist/cjs/client/validation-worker-file.cjs',
};

// The packages' sources, compiled one file at a time (tsc type-checks them when it builds them). The projects that
// type-check their tests in jest (core-legacy, schema) compile the sources this way too: through ts-jest's language
// service, each would also type-check every source file it loads.
const sources: NonNullable<Config['transform']> = {
  '/packages/(core|schema|mcp|agent)/src/.+\\.c?ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.jest.json', diagnostics: { warnOnly: false } }],
};

function project(displayName: string, testMatch: string[], tsconfig = '<rootDir>/tsconfig.jest.json', extra: Partial<Project> = {}): Project {
  return {
    displayName,
    testMatch,
    // jest's node environment, failing a file that leaves a process running (test/helpers/process-leak-environment.cjs).
    testEnvironment: '<rootDir>/test/helpers/process-leak-environment.cjs',
    moduleNameMapper,
    transform: { '^.+\\.c?ts$': ['ts-jest', { tsconfig, diagnostics: { warnOnly: false } }] },
    ...extra,
  } as Project;
}

// One project per package. The decorator tests run twice: under TC39 standard
// decorators and under legacy experimentalDecorators + emitDecoratorMetadata.
const config: Config = {
  // Writes each package's src/version.ts (generated from its package.json, as the build does).
  globalSetup: '<rootDir>/scripts/versions.mjs',
  // Tests run in a worker that is replaced once it holds more than this after a test file (also on
  // two cores, where jest would otherwise run every file in its own process, one heap for all).
  workerIdleMemoryLimit: '1GB',
  // One worker more than the cores: much of a test file's time is spent waiting on the processes, servers and npm
  // installs it starts, which a third file fills on two cores (the whole Node 20 suite on a quiet two-core machine:
  // 725 s of wall time with two workers, 627 s with three on the same code). jest's default, one fewer than the cores,
  // is a single worker on two cores.
  maxWorkers: availableParallelism() + 1,
  // The slowest files first (test/durations.json where jest has no timings of its own, as in CI): no long file at the end.
  testSequencer: '<rootDir>/test/helpers/test-sequencer.cjs',
  projects: [
    project('core', ['<rootDir>/packages/core/test/**/*.test.ts'], undefined, {
      testPathIgnorePatterns: ['\\.legacy\\.test\\.ts$'],
      // arktype (a Standard Schema library under test) ships ES modules only: compiled to CommonJS for jest.
      transform: {
        '^.+\\.c?ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.jest.json', diagnostics: { warnOnly: false } }],
        '/node_modules/(arktype|arkregex|@ark)/.+\\.js$': '<rootDir>/packages/core/test/helpers/esm-to-cjs.cjs',
      },
      transformIgnorePatterns: ['/node_modules/(?!(arktype|arkregex|@ark)/)'],
    }),
    project('core-legacy', ['<rootDir>/packages/core/test/decorators/**/*.test.ts'], undefined, {
      transform: {
        ...sources,
        '^.+\\.c?ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.jest-legacy.json', diagnostics: { warnOnly: false } }],
      },
    }),
    // The schema package's own tests compile through its build step (built first: `node scripts/build.mjs schema`).
    project('schema', ['<rootDir>/packages/schema/test/**/*.test.ts'], undefined, {
      transform: {
        ...sources,
        '^.+\\.c?ts$': [
          'ts-jest',
          {
            tsconfig: '<rootDir>/tsconfig.jest-schema.json',
            diagnostics: { warnOnly: false },
            astTransformers: { before: [{ path: '@anytool/schema/ts-jest' }] },
          },
        ],
      },
    }),
    project('mcp', ['<rootDir>/packages/mcp/test/**/*.test.ts'], undefined, {
      // jose (JWT verification) ships ES modules only: compiled to CommonJS for jest, as arktype is for core.
      transform: {
        '^.+\\.c?ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.jest.json', diagnostics: { warnOnly: false } }],
        '/node_modules/jose/.+\\.js$': '<rootDir>/packages/core/test/helpers/esm-to-cjs.cjs',
      },
      transformIgnorePatterns: ['/node_modules/(?!jose/)'],
    }),
    project('agent', ['<rootDir>/packages/agent/test/**/*.test.ts'], undefined, { globals: { sdkMajors: { openai: 6, anthropic: 0 } } }),
    // The adapters' tests again, against the next majors of the official clients (installed under aliases).
    project('agent-openai-7-anthropic-1', ['<rootDir>/packages/agent/test/models/*.test.ts'], '<rootDir>/tsconfig.test-sdk-next.json', {
      moduleNameMapper: {
        '^openai$': '<rootDir>/node_modules/openai-7',
        '^openai/(.*)$': '<rootDir>/node_modules/openai-7/$1',
        '^@anthropic-ai/sdk$': '<rootDir>/node_modules/anthropic-sdk-1',
        '^@anthropic-ai/sdk/(.*)$': '<rootDir>/node_modules/anthropic-sdk-1/$1',
        ...moduleNameMapper,
      },
      globals: { sdkMajors: { openai: 7, anthropic: 1 } },
    }),
    project('e2e', ['<rootDir>/test/e2e/**/*.test.ts']),
    // Packs every package (once per run, for every file) and installs the tarballs into fresh projects outside the repository.
    project('consumer', ['<rootDir>/test/consumer/**/*.test.ts'], undefined, {
      globalSetup: '<rootDir>/test/consumer/global-setup.ts',
      globalTeardown: '<rootDir>/test/consumer/global-teardown.ts',
    }),
  ],
};

export default config;
