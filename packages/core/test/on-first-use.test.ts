// What core loads on first use rather than at import: ajv (with ajv-formats) by the first schema compiled, its
// 2019-09 and 2020-12 dialects by the first schema that declares one, the OpenTelemetry API by the first thing that
// would trace. Checked on the built packages in a fresh Node process (run after a build), ES and CommonJS builds: an
// import of @anytool/core or @anytool/mcp loads none of them, a tool loads ajv, a 2020-12 schema its dialect, and
// calls through tracing() with no SDK registered never load the API.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

const root = join(__dirname, '..', '..', '..');

/** Runs `steps` in a fresh process; after each, which of ajv (and its dialects), ajv-formats and @opentelemetry/api Node has loaded. */
function loadedAfter(format: 'esm' | 'cjs'): Record<string, string[]> {
  const load = (entry: string): string => (format === 'esm' ? `await import('${entry}')` : `require('${entry}')`);
  const script = `
    const { createRequire } = await import('node:module');
    const require = createRequire(${JSON.stringify(join(root, 'package.json'))});
    const loaded = () => ['ajv', 'ajv/dist/2019', 'ajv/dist/2020', 'ajv-formats', '@opentelemetry/api'].filter((name) =>
      Object.keys(require.cache).some((file) =>
        name.includes('/dist/') ? file.endsWith('/node_modules/' + name + '.js') : file.includes('/node_modules/' + name + '/')));
    const seen = {};
    const core = ${load('@anytool/core')};
    ${load('@anytool/mcp')};
    seen.imported = loaded();
    const add = core.tool(({ a, b }) => a + b, {
      name: 'add',
      description: 'Add two numbers.',
      parameters: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
    });
    const toolset = new core.Toolset(add).use(core.tracing());
    const result = await toolset.invoke('add', { a: 1, b: 2 });
    if (result.isError) throw new Error('the call failed');
    seen.called = loaded();
    const dialect2020 = core.tool(() => 'ok', {
      name: 'latest',
      description: 'A 2020-12 schema.',
      parameters: { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', properties: {} },
    });
    if ((await new core.Toolset(dialect2020).invoke('latest', {})).isError) throw new Error('the 2020-12 call failed');
    seen.dialect2020 = loaded();
    core.extractTraceContext({ traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' });
    seen.extracted = loaded();
    process.stdout.write(JSON.stringify(seen));`;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: root, encoding: 'utf8' });
  return JSON.parse(out) as Record<string, string[]>;
}

describe.each(['esm', 'cjs'] as const)('the %s build', (format) => {
  it('loads ajv with the first tool, a dialect with its first schema, and the OpenTelemetry API once a trace context is read', () => {
    expect(loadedAfter(format)).toEqual({
      imported: [],
      called: ['ajv', 'ajv-formats'],
      dialect2020: ['ajv', 'ajv/dist/2020', 'ajv-formats'],
      extracted: ['ajv', 'ajv/dist/2020', 'ajv-formats', '@opentelemetry/api'],
    });
  });
});
