// The built package loads from ESM and from CommonJS, through its exports map, subpaths included.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { scaled } from '../../core/test/helpers/time-scale';

const root = join(__dirname, '..', '..', '..');
const pkg = join(root, 'packages', 'agent');

beforeAll(() => {
  if (!existsSync(join(pkg, 'dist', 'esm', 'index.js')) || !existsSync(join(pkg, 'dist', 'cjs', 'index.js'))) {
    execFileSync(process.execPath, [join(root, 'scripts', 'build.mjs'), 'agent'], { cwd: root, stdio: 'pipe' });
  }
}, scaled(120_000));

const program = (load: (specifier: string) => string): string => `
  const { Agent, ScriptedModel } = ${load('@anytool/agent')};
  const { OpenAIModel } = ${load('@anytool/agent/openai')};
  const { AnthropicModel } = ${load('@anytool/agent/anthropic')};
  const { OpenAIResponsesModel } = ${load('@anytool/agent/openai-responses')};
  const { GeminiModel } = ${load('@anytool/agent/gemini')};
  const { RedisRunStore } = ${load('@anytool/agent/redis')};
  const agent = new Agent({ model: new ScriptedModel([{ text: 'hi' }]) });
  agent.run('hello').then((result) => console.log(JSON.stringify({
    text: result.text,
    openai: new OpenAIModel({ model: 'm', apiKey: 'k' }).name,
    anthropic: new AnthropicModel({ model: 'm', apiKey: 'k' }).name,
    responses: new OpenAIResponsesModel({ model: 'm', apiKey: 'k' }).name,
    gemini: new GeminiModel({ model: 'm', apiKey: 'k' }).name,
    store: new RedisRunStore({ url: 'redis://127.0.0.1:1' }).constructor.name,
  })));
`;

describe('@anytool/agent as a built package', () => {
  const expected = {
    text: 'hi',
    openai: 'openai m',
    anthropic: 'anthropic m',
    responses: 'openai-responses m',
    gemini: 'gemini m',
    store: 'RedisRunStore',
  };

  it('is imported from ESM', () => {
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', program((s) => `await import('${s}')`)], { cwd: root, encoding: 'utf8' });
    expect(JSON.parse(out)).toEqual(expected);
  });

  it('is required from CommonJS', () => {
    const out = execFileSync(process.execPath, ['--input-type=commonjs', '-e', program((s) => `require('${s}')`)], { cwd: root, encoding: 'utf8' });
    expect(JSON.parse(out)).toEqual(expected);
  });

  // `redis` is an optional peer: a program that never connects a RedisRunStore runs without it installed.
  it('loads the redis package only when a RedisRunStore connects (CommonJS)', () => {
    const out = execFileSync(
      process.execPath,
      [
        '--input-type=commonjs',
        '-e',
        `
        const loaded = () => Object.keys(require.cache).some((file) => /[\\\\/]node_modules[\\\\/](redis|@redis)[\\\\/]/.test(file));
        const { Agent, ScriptedModel } = require('@anytool/agent');
        const { RedisRunStore } = require('@anytool/agent/redis');
        const store = new RedisRunStore({ url: 'redis://127.0.0.1:1' });
        new Agent({ model: new ScriptedModel([{ text: 'hi' }]) }).run('hello').then(async (result) => {
          const before = loaded();
          const code = await store.connect().then(() => 'connected', (error) => error.code);
          console.log(JSON.stringify({ text: result.text, before, code, after: loaded() }));
        });
      `,
      ],
      { cwd: root, encoding: 'utf8' },
    );
    expect(JSON.parse(out)).toEqual({ text: 'hi', before: false, code: 'STORE_FAILED', after: true });
  });

  it('runs without the redis package, which only a RedisRunStore that connects misses (ES modules)', () => {
    // A resolve hook makes `redis` missing, as in a project that never installed it.
    const hook = `export async function resolve(specifier, context, next) {
      if (specifier === 'redis' || specifier.startsWith('@redis/')) throw Object.assign(new Error('Cannot find package ' + specifier), { code: 'ERR_MODULE_NOT_FOUND' });
      return next(specifier, context);
    }`;
    const out = execFileSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `
        import { register } from 'node:module';
        register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(hook)}));
        const { Agent, ScriptedModel } = await import('@anytool/agent');
        const { RedisRunStore } = await import('@anytool/agent/redis');
        const result = await new Agent({ model: new ScriptedModel([{ text: 'hi' }]) }).run('hello');
        const error = await new RedisRunStore({ url: 'redis://127.0.0.1:1' }).connect().then(() => undefined, (error) => error);
        console.log(JSON.stringify({ text: result.text, code: error?.code, message: error?.message }));
      `,
      ],
      { cwd: root, encoding: 'utf8' },
    );
    expect(JSON.parse(out)).toEqual({
      text: 'hi',
      code: 'MISSING_DEPENDENCY',
      message: 'RedisRunStore.connect(): cannot load the redis package (Cannot find package redis); install it next to @anytool/agent: npm i redis',
    });
  });

  it('puts types first in every branch of its exports map', () => {
    const manifest = JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8')) as { exports: Record<string, unknown> };
    for (const [subpath, entry] of Object.entries(manifest.exports)) {
      if (subpath === './package.json') continue;
      for (const branch of Object.values(entry as Record<string, Record<string, string>>)) {
        expect(Object.keys(branch)[0]).toBe('types');
        expect(existsSync(join(pkg, branch['types']!))).toBe(true);
      }
    }
  });
});
