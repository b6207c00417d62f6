import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { createFileCompiler } from '@anytool/schema/internal';
import { anytoolBin, fixtures, removeScratchDirs, repoRoot, scratchDir } from '../helpers';

afterAll(removeScratchDirs);

// The file-by-file compiler under the Node loader and the bundler plugins: for the whole fixture
// corpus (and the same-tool fixture, which imports types from another file), the definitions of
// its output are those of `anytool build`'s, in every provider format; its disk cache serves a
// file while nothing it read changed, and makes it anew when a file its types come from changes.

const FORMATS = ['openai', 'anthropic', 'gemini', 'mcp'] as const;
const compilerOptions = {
  target: 'ES2022',
  module: 'CommonJS',
  moduleResolution: 'Node10',
  strict: true,
  skipLibCheck: true,
  esModuleInterop: true,
  types: ['node'],
};

/** A CommonJS scratch project (the package itself is ESM) with `files` in src/. */
function project(name: string, files: readonly string[]): string {
  const dir = scratchDir(name);
  mkdirSync(join(dir, 'src'));
  for (const file of files) copyFileSync(file, join(dir, 'src', basename(file)));
  writeFileSync(join(dir, 'package.json'), '{ "type": "commonjs" }\n');
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { ...compilerOptions, rootDir: 'src', outDir: 'out-build' }, include: ['src'] }));
  return dir;
}

/** Each module's definitions in every format, read in a fresh process. */
function definitionsOf(dir: string, outDir: string, modules: readonly string[]): Record<string, unknown> {
  const script = `
    const { toolsetFromModule } = require('@anytool/core');
    const out = {};
    for (const name of ${JSON.stringify(modules)}) {
      // Classes (with @Tool methods, or BaseTool subclasses) as instances, as a user would export them.
      const namespace = {};
      for (const [key, value] of Object.entries(require(${JSON.stringify(join(dir, outDir))} + '/' + name + '.js'))) {
        const isClass = typeof value === 'function' && Function.prototype.toString.call(value).startsWith('class');
        namespace[key] = isClass ? new value() : value;
      }
      const toolset = toolsetFromModule(namespace);
      out[name] = Object.fromEntries(${JSON.stringify(FORMATS)}.map((f) => [f, toolset.definitions(f)]));
    }
    process.stdout.write(JSON.stringify(out));`;
  return JSON.parse(execFileSync(process.execPath, ['-e', script], { cwd: dir, encoding: 'utf8' })) as Record<string, unknown>;
}

function compileAll(dir: string, cacheDirectory: string | false): void {
  const compiler = createFileCompiler({ tsconfig: join(dir, 'tsconfig.json'), cacheDirectory });
  mkdirSync(join(dir, 'out-file'), { recursive: true });
  for (const file of readdirSync(join(dir, 'src'))) {
    const path = join(dir, 'src', file);
    writeFileSync(join(dir, 'out-file', file.replace(/\.ts$/, '.js')), compiler.compile(path, readFileSync(path, 'utf8'), 'commonjs').code);
  }
}

test('the corpus compiled file by file has the definitions anytool build gives it, in every format', () => {
  const corpus = readdirSync(join(fixtures, 'corpus')).map((f) => join(fixtures, 'corpus', f));
  const sameTool = ['weather-tools.ts', 'forecast-types.ts'].map((f) => join(fixtures, 'same-tool', f));
  const dir = project('file-compiler-corpus', [...corpus, ...sameTool]);
  execFileSync(process.execPath, [anytoolBin, 'build', '-p', join(dir, 'tsconfig.json')], { cwd: repoRoot, encoding: 'utf8' });
  compileAll(dir, false);
  const modules = [...corpus, join(fixtures, 'same-tool', 'weather-tools.ts')].map((f) => basename(f, '.ts'));
  const built = definitionsOf(dir, 'out-build', modules);
  const compiled = definitionsOf(dir, 'out-file', modules);
  expect(Object.keys(compiled)).toHaveLength(modules.length);
  for (const name of modules) {
    expect((built[name] as Record<string, unknown[]>)['openai']!.length).toBeGreaterThan(0);
    expect({ [name]: compiled[name] }).toEqual({ [name]: built[name] });
  }
});

test('the disk cache serves a file while nothing it read changed, and makes it anew when its types change', () => {
  const dir = project(
    'file-compiler-cache',
    ['weather-tools.ts', 'forecast-types.ts'].map((f) => join(fixtures, 'same-tool', f)),
  );
  const cache = join(dir, 'cache');
  const tools = join(dir, 'src', 'weather-tools.ts');
  const compile = (): string =>
    createFileCompiler({ tsconfig: join(dir, 'tsconfig.json'), cacheDirectory: cache }).compile(tools, readFileSync(tools, 'utf8'), 'commonjs').code;
  const first = compile();
  const entries = readdirSync(cache);
  expect(entries).toHaveLength(1);
  // A new compiler (a new process) with nothing changed: the same entry, and no new one.
  expect(compile()).toBe(first);
  expect(readdirSync(cache)).toEqual(entries);
  // A description in the file the tools' types come from changes: the schema follows.
  const types = join(dir, 'src', 'forecast-types.ts');
  const text = readFileSync(types, 'utf8');
  const [, doc] = /\/\*\* ([^*\n]+?) \*\/\s*\n\s*city/.exec(text) ?? [];
  expect(doc).toBeDefined();
  writeFileSync(types, text.replace(doc!, 'The place to ask about.'));
  const second = compile();
  expect(second).not.toBe(first);
  expect(second).toContain('The place to ask about.');
  expect(first).toContain(JSON.stringify(doc).slice(1, -1));
});
