import { existsSync } from 'node:fs';
import { join } from 'node:path';
import * as agent from '@anytool/agent';
import { domGlobals, exportedNames } from '../../../test/helpers/export-names';
import * as openai from '../src/models/openai.js';
import * as anthropic from '../src/models/anthropic.js';
import * as responses from '../src/models/openai-responses.js';
import * as gemini from '../src/models/gemini.js';
import * as redis from '../src/redis-run-store.js';

describe('public surface', () => {
  it('exports exactly the runtime values meant to be public', () => {
    expect(Object.keys(agent).sort()).toEqual([
      'Agent',
      'AgentTool',
      'DEFAULT_MAX_STATE_BYTES',
      'DEFAULT_RUN_TTL_MS',
      'MemoryRunStore',
      'RUN_STATE_FORMAT',
      'RUN_STATE_VERSION',
      'ScriptedModel',
      'addUsage',
      'argumentsDigest',
      'emptyUsage',
      'hasToolCall',
      'latestToolResults',
      'schemaOf',
      'stepCountIs',
    ]);
    expect(Object.keys(openai)).toEqual(['OpenAIModel']);
    expect(Object.keys(anthropic)).toEqual(['AnthropicModel']);
    expect(Object.keys(responses)).toEqual(['OpenAIResponsesModel']);
    expect(Object.keys(gemini)).toEqual(['GeminiModel']);
    expect(Object.keys(redis)).toEqual(['RedisRunStore']);
  });

  it('exports the same names its source declares, none of them a DOM global, and has no internal subpath', () => {
    const names = exportedNames(join(__dirname, '..', 'src', 'index.ts'));
    expect(names.values).toEqual(Object.keys(agent).sort());
    const subpaths = [
      ...['openai', 'anthropic', 'openai-responses', 'gemini'].map((name) => exportedNames(join(__dirname, '..', 'src', 'models', `${name}.ts`))),
      exportedNames(join(__dirname, '..', 'src', 'redis-run-store.ts')),
    ];
    const dom = domGlobals();
    expect([names, ...subpaths].flatMap((n) => [...n.values, ...n.types]).filter((name) => dom.has(name))).toEqual([]);
  });

  it('maps every subpath in package.json exports to a source file', () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- reading the manifest in a CommonJS test
    const manifest = require('../package.json') as { exports: Record<string, { import?: { types: string } }> };
    expect(Object.keys(manifest.exports)).toEqual(['.', './openai', './anthropic', './openai-responses', './gemini', './redis', './package.json']);
    for (const entry of Object.values(manifest.exports)) {
      if (entry.import === undefined) continue;
      const source = entry.import.types.replace('./dist/esm/', '').replace(/\.d\.ts$/, '.ts');
      expect(existsSync(join(__dirname, '..', 'src', source))).toBe(true);
    }
  });
});
