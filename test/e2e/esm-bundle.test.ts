// What a fresh Node process loads when it imports the built packages as ES modules (scripts/bundle-esm.mjs): the
// bundled entries and their chunks, never a file of tsc's per-source output (which would be a second copy of a class
// the bundle holds), and none of Node's modules that only some paths use.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

const root = join(__dirname, '..', '..');

const run = (script: string): unknown =>
  JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: root, encoding: 'utf8' }).trim().split('\n').at(-1)!);

describe('importing the built @anytool/mcp and @anytool/core as ES modules', () => {
  it('loads their bundled entries, chunks and CommonJS helpers, nothing of tsc per-file output', () => {
    // Every URL the ES module loader resolves, sent from the hooks' thread.
    const hook = `let port; export function initialize(data) { port = data.port; }
      export async function resolve(specifier, context, next) { const resolved = await next(specifier, context); port.postMessage(resolved.url); return resolved; }`;
    const urls = run(`
      import { register } from 'node:module';
      import { MessageChannel } from 'node:worker_threads';
      const { port1, port2 } = new MessageChannel();
      const urls = [];
      port1.on('message', (url) => urls.push(url));
      register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(hook)}), { data: { port: port2 }, transferList: [port2] });
      for (const entry of ['@anytool/mcp', '@anytool/mcp/internal', '@anytool/core', '@anytool/core/internal', '@anytool/core/runtime']) await import(entry);
      await new Promise((resolve) => setTimeout(resolve, 100));
      port1.close();
      console.log(JSON.stringify(urls));`) as string[];
    const ours = urls.filter((url) => /\/packages\/(core|mcp)\//.test(url)).map((url) => url.replace(/^.*\/packages\//, ''));
    expect(ours).toEqual(expect.arrayContaining(['mcp/dist/bundle/index.js', 'core/dist/bundle/index.js', 'core/dist/bundle/internal.js']));
    expect(ours.filter((path) => !/^(core|mcp)\/dist\/bundle\/[^/]+\.c?js$/.test(path))).toEqual([]);
  });

  it("createMcpServer requires the bundle's server module, not a second copy of the server from tsc's output", () => {
    const required = run(`
      import { createRequire } from 'node:module';
      const { createMcpServer } = await import('@anytool/mcp');
      const { Toolset } = await import('@anytool/core');
      createMcpServer(new Toolset());
      console.log(JSON.stringify(Object.keys(createRequire(process.cwd() + '/').cache)));`) as string[];
    const ours = required.filter((path) => /\/packages\/(core|mcp)\//.test(path)).map((path) => path.replace(/^.*\/packages\//, ''));
    expect(ours).toContain('mcp/dist/bundle/tool-server.js');
    expect(ours.filter((path) => !/^(core|mcp)\/dist\/bundle\//.test(path))).toEqual([]);
  });

  it('runs the validation worker of costly schemas from the bundle, as the ES module build finds it', () => {
    const answers = run(`
      import { createRequire } from 'node:module';
      import { Worker } from 'node:worker_threads';
      const require = createRequire(${JSON.stringify(join(root, 'packages', 'mcp', 'dist', 'bundle') + '/')});
      const file = require('./validation-worker-file.cjs').validationWorkerFile();
      const worker = new Worker(file, { execArgv: [] });
      const answers = [];
      await new Promise((resolve, reject) => {
        worker.on('error', reject);
        worker.on('message', (answer) => { answers.push(answer); if (answers.length === 3) resolve(); });
        const schema = { type: 'object', properties: { n: { type: 'number', default: 7 } } };
        worker.postMessage({ id: 1, key: 1, schema, args: {}, forget: [] });
        worker.postMessage({ id: 2, key: 1, args: { n: 'x' }, forget: [] });
      });
      await worker.terminate();
      console.log(JSON.stringify({ file: file.slice(${JSON.stringify(root)}.length), answers: answers.map(({ ms, ...rest }) => rest) }));`);
    expect(answers).toEqual({
      file: join('/packages', 'mcp', 'dist', 'bundle', 'validation-worker.js'),
      answers: [
        { id: 1, compiled: true },
        { id: 1, args: { n: 7 } },
        { id: 2, problems: [expect.objectContaining({ path: '/n' })], more: 0 },
      ],
    });
  });

  it('keeps the names of the classes (stack traces and logs show them), those that refer to themselves too', () => {
    const names = run(`
      const core = await import('@anytool/core');
      const mcp = await import('@anytool/mcp');
      const classes = { ...core, ...mcp };
      console.log(JSON.stringify(['Toolset', 'AnytoolError', 'BaseTool', 'ExecutionContext', 'ToolPins', 'McpConnection', 'McpToolset'].map((name) => [name, classes[name].name])));`) as [
      string,
      string,
    ][];
    for (const [exported, name] of names) expect(name).toBe(exported);
  });

  it("loads none of Node's modules that only some paths use", () => {
    const loaded = run(`
      await import('@anytool/mcp');
      console.log(JSON.stringify(process.moduleLoadList));`) as string[];
    const later = ['child_process', 'http', 'zlib', 'worker_threads', 'crypto', 'perf_hooks', 'fs/promises'];
    expect(later.filter((name) => loaded.includes(`NativeModule ${name}`))).toEqual([]);
  });
});
