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
  const agent = new Agent({ model: new ScriptedModel([{ text: 'hi' }]) });
  agent.run('hello').then((result) => console.log(JSON.stringify({
    text: result.text,
    openai: new OpenAIModel({ model: 'm', apiKey: 'k' }).name,
    anthropic: new AnthropicModel({ model: 'm', apiKey: 'k' }).name,
    responses: new OpenAIResponsesModel({ model: 'm', apiKey: 'k' }).name,
    gemini: new GeminiModel({ model: 'm', apiKey: 'k' }).name,
  })));
`;

describe('@anytool/agent as a built package', () => {
  const expected = { text: 'hi', openai: 'openai m', anthropic: 'anthropic m', responses: 'openai-responses m', gemini: 'gemini m' };

  it('is imported from ESM', () => {
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', program((s) => `await import('${s}')`)], { cwd: root, encoding: 'utf8' });
    expect(JSON.parse(out)).toEqual(expected);
  });

  it('is required from CommonJS', () => {
    const out = execFileSync(process.execPath, ['--input-type=commonjs', '-e', program((s) => `require('${s}')`)], { cwd: root, encoding: 'utf8' });
    expect(JSON.parse(out)).toEqual(expected);
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
