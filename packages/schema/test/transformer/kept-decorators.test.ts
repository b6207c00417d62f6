import { execFileSync } from 'node:child_process';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { anytoolTransformer } from '@anytool/schema';
import { buildCommand } from '@anytool/schema/internal';
import { emitWithTransformer, fixtures, messages, programFor, removeScratchDirs, scratchDir } from '../helpers';
import { scaled } from '../../../core/test/helpers/time-scale';

afterAll(removeScratchDirs);

// Every target from ES2015 to ESNext, with standard (TC39) and legacy decorators, built with
// `anytool build` and run under this Node: ESNext keeps standard decorators in TypeScript's
// output, where Node fails with a SyntaxError, so anytool build lowers them; the ways in that
// cannot change the target stop the build with ANYTOOL91007 instead.

const targets = ['ES2015', 'ES2017', 'ES2020', 'ES2022', 'ES2023', 'ES2024', 'ESNext'];
const modes = ['standard', 'legacy'] as const;
const fixture = join(fixtures, 'targets', 'calc.ts');

type Report = {
  definitions: Array<{ name: string; description?: string; parameters: { properties: Record<string, unknown>; required?: string[] } }>;
  sum: string;
};

describe('anytool build, every target, both kinds of decorators', () => {
  // The repository's own TypeScript (5.9, whose `tsc --init` writes "target": "esnext").
  const dir = scratchDir('targets', true);
  const built: Record<string, { code: number; err: string }> = {};
  let reports: Record<string, Report | { error: string }> = {};

  beforeAll(() => {
    writeFileSync(join(dir, 'package.json'), '{ "type": "commonjs" }\n');
    copyFileSync(fixture, join(dir, 'calc.ts'));
    // Only ESNext's default library has Set#union: the lowered ESNext build must still check against it.
    writeFileSync(join(dir, 'esnext-only.ts'), 'export function unionSize(): number {\n  return new Set([1]).union(new Set([2])).size;\n}\n');
    for (const target of targets) {
      for (const mode of modes) {
        const name = `${target}-${mode}`;
        const compilerOptions = {
          target,
          module: 'commonjs',
          strict: true,
          skipLibCheck: true,
          types: [],
          outDir: `out-${name}`,
          ...(mode === 'legacy' ? { experimentalDecorators: true } : {}),
        };
        const files = target === 'ESNext' ? ['calc.ts', 'esnext-only.ts'] : ['calc.ts'];
        writeFileSync(join(dir, `tsconfig.${name}.json`), JSON.stringify({ compilerOptions, files }));
        let err = '';
        const code = buildCommand(['-p', join(dir, `tsconfig.${name}.json`)], { out: () => undefined, err: (t) => (err += t) });
        built[name] = { code, err };
      }
    }
    // One Node process loads every output: a SyntaxError in one is reported for that one.
    const script = `
      const names = ${JSON.stringify(Object.keys(built))};
      (async () => {
        const out = {};
        for (const name of names) {
          try {
            out[name] = await require('./out-' + name + '/calc.js').report();
          } catch (error) {
            out[name] = { error: String(error) };
          }
        }
        process.stdout.write(JSON.stringify(out));
      })();`;
    reports = JSON.parse(execFileSync(process.execPath, ['-e', script], { cwd: dir, encoding: 'utf8' }));
  }, scaled(180_000));

  it.each(targets.flatMap((target) => modes.map((mode) => [target, mode] as const)))(
    '%s, %s decorators: builds, runs, and its tools have their schemas',
    (target, mode) => {
      const name = `${target}-${mode}`;
      expect(built[name]).toEqual({ code: 0, err: '' });
      const report = reports[name] as Report;
      expect(report).not.toHaveProperty('error');
      expect(report.definitions.map((d) => d.name)).toEqual(['add', 'greet', 'mul']);
      expect(report.definitions[0]).toMatchObject({
        description: 'Add two numbers.',
        parameters: { properties: { a: { type: 'number', description: 'The first' }, b: { type: 'number' } }, required: ['a', 'b'] },
      });
      expect(report.definitions[1]!.parameters.properties).toEqual({ name: { type: 'string' }, excited: { type: 'boolean', default: false } });
      expect(report.sum).toBe('5');
    },
  );

  it('ESNext with standard decorators: no decorator is left in the output', () => {
    const js = readFileSync(join(dir, 'out-ESNext-standard', 'calc.js'), 'utf8');
    expect(js).not.toMatch(/^\s*@Tool/m);
    expect(js).toContain('__esDecorate');
  });

  it('ESNext with the decorated file reached only through an import: lowered too', async () => {
    writeFileSync(join(dir, 'main.ts'), "export { report } from './calc';\n");
    writeFileSync(
      join(dir, 'tsconfig.imported.json'),
      JSON.stringify({
        compilerOptions: { target: 'ESNext', module: 'commonjs', strict: true, skipLibCheck: true, types: [], outDir: 'out-imported' },
        files: ['main.ts'],
      }),
    );
    let err = '';
    expect(buildCommand(['-p', join(dir, 'tsconfig.imported.json')], { out: () => undefined, err: (t) => (err += t) })).toBe(0);
    expect(err).toBe('');
    const script = "require('./out-imported/main.js').report().then((r) => process.stdout.write(JSON.stringify(r)))";
    const report = JSON.parse(execFileSync(process.execPath, ['-e', script], { cwd: dir, encoding: 'utf8' })) as Report;
    expect(report.definitions.map((d) => d.name)).toEqual(['add', 'greet', 'mul']);
  });

  it('ESNext without decorators in the project is emitted as ESNext, untouched', () => {
    const plain = scratchDir('esnext-plain', true);
    writeFileSync(join(plain, 'package.json'), '{ "type": "commonjs" }\n');
    writeFileSync(
      join(plain, 'plain.ts'),
      'export function last(items: number[]): number | undefined {\n  using _guard = { [Symbol.dispose]() {} };\n  return items.at(-1);\n}\n',
    );
    writeFileSync(
      join(plain, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { target: 'ESNext', module: 'commonjs', lib: ['ESNext'], strict: true, types: [], outDir: 'out' },
        files: ['plain.ts'],
      }),
    );
    expect(buildCommand(['-p', join(plain, 'tsconfig.json')], { out: () => undefined, err: (t) => process.stderr.write(t) })).toBe(0);
    expect(readFileSync(join(plain, 'out', 'plain.js'), 'utf8')).toContain('using _guard');
  });
});

describe('ts-patch, ts-jest and ts-node cannot change the target: ESNext with standard decorators is a build error', () => {
  const options = { ...programFor([fixture]).getCompilerOptions() };

  /**
   * The declaration files of node_modules (TypeScript's libraries, @types), parsed once for the programs below: each
   * program differs in its options, not in those files (the fixture and the sources are parsed for each).
   */
  const declarations = new Map<string, ts.SourceFile>();

  function programWith(extra: ts.CompilerOptions): ts.Program {
    const host = ts.createCompilerHost({ ...options, ...extra });
    const getSourceFile = host.getSourceFile.bind(host);
    host.getSourceFile = (fileName, languageVersion, onError, shouldCreate) => {
      if (!/[\\/]node_modules[\\/].*\.d\.ts$/.test(fileName)) return getSourceFile(fileName, languageVersion, onError, shouldCreate);
      const version = typeof languageVersion === 'object' ? `${languageVersion.languageVersion} ${languageVersion.impliedNodeFormat}` : `${languageVersion}`;
      const key = `${fileName} ${version}`;
      let file = declarations.get(key);
      if (file === undefined) {
        file = getSourceFile(fileName, languageVersion, onError, shouldCreate);
        if (file !== undefined) declarations.set(key, file);
      }
      return file;
    };
    return ts.createProgram({ rootNames: [fixture], options: { ...options, ...extra, noEmit: false }, host });
  }

  function keptDecoratorErrors(extra: ts.CompilerOptions): string[] {
    const { diagnostics } = emitWithTransformer(programWith(extra), fixture);
    return messages(diagnostics.filter((d) => d.code === 91007));
  }

  const esnext = { target: ts.ScriptTarget.ESNext, experimentalDecorators: false, emitDecoratorMetadata: false };

  it('names the decorator, the method and the fix (the diagnostic gives file and line)', () => {
    expect(keptDecoratorErrors(esnext)).toEqual([
      expect.stringMatching(
        /^@Tool\(\) on Calc\.add would stay as written in the JavaScript, and Node cannot run decorators: .*set "target": "ES20\d\d" \(or lower\) in tsconfig\.json, or compile with `anytool build`/,
      ),
    ]);
  });

  it('not when TypeScript lowers them: a numbered target, useDefineForClassFields off, or legacy decorators', () => {
    expect(keptDecoratorErrors({ target: ts.ScriptTarget.ES2022, experimentalDecorators: false })).toEqual([]);
    expect(keptDecoratorErrors({ ...esnext, useDefineForClassFields: false })).toEqual([]);
    expect(keptDecoratorErrors({ target: ts.ScriptTarget.ESNext, experimentalDecorators: true })).toEqual([]);
  });

  it('with the default handler (ts-node, ts-jest) the error is thrown, with file and line', () => {
    const program = programWith(esnext);
    const emit = (): unknown => program.emit(program.getSourceFile(fixture), () => undefined, undefined, false, { before: [anytoolTransformer(program)] });
    expect(emit).toThrow(/calc\.ts\(9,3\): error ANYTOOL91007: @Tool\(\) on Calc\.add would stay as written/);
  });
});
