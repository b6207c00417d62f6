import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as schema from '@anytool/schema';
import * as internal from '@anytool/schema/internal';
import { domGlobals, exportedNames } from '../../../test/helpers/export-names';
import { repoRoot, schemaRoot } from './helpers';

describe('the public surface of @anytool/schema', () => {
  const entry = (name: string): string => join(schemaRoot, 'src', `${name}.ts`);

  it('exports exactly the intended names', () => {
    expect(Object.keys(schema).sort()).toEqual(['DiagnosticCode', 'anytoolTransformer', 'formatAnytoolDiagnostics', 'tspcTransformer'].sort());
    expect(exportedNames(entry('index'))).toEqual({ values: Object.keys(schema).sort(), types: ['AnytoolTransformerOptions', 'TspcExtras'] });
  });

  it('shares the command line and the analyzer through @anytool/schema/internal only', () => {
    const values = ['RUNTIME_MODULE', 'analyzeSourceFile', 'buildCommand', 'createFileCompiler', 'describeTools', 'main', 'readProject', 'schemaCommand'];
    expect(Object.keys(internal).sort()).toEqual(values);
    expect(exportedNames(entry('internal'))).toEqual({
      values,
      types: [
        'BuildInfoData',
        'ClassReference',
        'CommandOutput',
        'CompiledFile',
        'FileCompiler',
        'FileCompilerOptions',
        'MainOptions',
        'PreparerSpec',
        'SourceAnalysis',
        'ToolDescription',
        'ToolDescriptions',
        'ToolSite',
      ],
    });
    for (const name of values) expect([name, name in schema]).toEqual([name, false]);
    expect(readFileSync(entry('internal'), 'utf8')).toMatch(/Not public API[\s\S]*any release/);
  });

  it('exports no name that shadows a DOM global', () => {
    const dom = domGlobals();
    const names = ['index', 'internal'].flatMap((file) => Object.values(exportedNames(entry(file))).flat());
    expect(names.filter((name) => dom.has(name))).toEqual([]);
  });

  it('keeps the walker and the symbol oracle internal', () => {
    for (const name of ['TypeSchemaWalker', 'FrameworkSymbols', 'JsDocReader', 'applyClassValidatorConstraints', 'jsonExpression'])
      expect(name in schema || name in internal).toBe(false);
  });
});

describe('@anytool/schema as a built package', () => {
  it('loads from ESM and from CommonJS through its exports map, the ts-jest and ts-patch entries included', () => {
    const esm = `const s = await import('@anytool/schema'); const i = await import('@anytool/schema/internal');
      process.stdout.write(JSON.stringify([typeof s.anytoolTransformer, i.RUNTIME_MODULE]));`;
    expect(JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', esm], { cwd: repoRoot, encoding: 'utf8' }))).toEqual([
      'function',
      '@anytool/core/runtime',
    ]);
    const cjs = `const s = require('@anytool/schema'); const j = require('@anytool/schema/ts-jest'); const p = require('@anytool/schema/ts-patch');
      process.stdout.write(JSON.stringify([typeof s.anytoolTransformer, j.name, typeof j.factory, typeof p.tspcTransformer]));`;
    expect(JSON.parse(execFileSync(process.execPath, ['-e', cjs], { cwd: repoRoot, encoding: 'utf8' }))).toEqual([
      'function',
      'anytool-schema',
      'function',
      'function',
    ]);
  });

  it('has no run-time entry: compiled code imports @anytool/core/runtime, and @anytool/core is a peer', () => {
    const manifest = JSON.parse(readFileSync(join(schemaRoot, 'package.json'), 'utf8')) as {
      exports: Record<string, unknown>;
      dependencies: Record<string, string>;
      peerDependencies: Record<string, string>;
    };
    expect(Object.keys(manifest.exports)).not.toContain('./runtime');
    expect(manifest.dependencies['@anytool/core']).toBeUndefined();
    expect(manifest.peerDependencies['@anytool/core']).toBe('^0.1.0');
  });

  it('puts types first in every conditional branch and declares the anytool bin', () => {
    const manifest = JSON.parse(readFileSync(join(schemaRoot, 'package.json'), 'utf8')) as { exports: Record<string, unknown>; bin: Record<string, string> };
    expect(manifest.bin).toEqual({ anytool: './bin/anytool.mjs' });
    expect(manifest.exports['./package.json']).toBe('./package.json');
    for (const [path, entry] of Object.entries(manifest.exports)) {
      if (typeof entry === 'string') continue;
      const branches = Object.values(entry as Record<string, unknown>);
      const nested = branches.every((b) => typeof b === 'object');
      if (nested) for (const branch of branches) expect([path, Object.keys(branch as object)[0]]).toEqual([path, 'types']);
      else expect([path, Object.keys(entry as object)[0]]).toEqual([path, 'types']);
    }
  });
});
