import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { lowerDefinitions, type ToolDefinition } from '@anytool/core';
import { anytoolBin, removeScratchDirs, repoRoot, schemaRoot, scratchDir } from '../helpers';
import { scaled } from '../../../core/test/helpers/time-scale';

// The real `anytool` bin in child processes, against modules written here: ES modules and CommonJS,
// importing @anytool/core by name (the scratch directory sits inside the repository, so it resolves).
jest.setTimeout(scaled(60_000));

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

let dir: string;

function anytool(args: readonly string[], options: { input?: string; env?: Record<string, string> } = {}): Run {
  const run = spawnSync(process.execPath, [anytoolBin, ...args], {
    cwd: dir,
    encoding: 'utf8',
    input: options.input ?? '',
    env: { ...process.env, ANYTOOL_DEBUG: '', ...options.env },
    timeout: 30_000,
  });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** A usage error: exit code 2, nothing on stdout, one line on stderr (after what the module printed) with no stack frame. */
function expectUsageError(run: Run, message: string | RegExp): void {
  expect({ code: run.code, stdout: run.stdout }).toEqual({ code: 2, stdout: '' });
  const line = run.stderr.startsWith(LOADING) ? run.stderr.slice(LOADING.length) : run.stderr;
  expect(line).toMatch(/^anytool[^\n]*\n$/);
  expect(line).not.toMatch(/^\s+at /m);
  expect(line).toMatch(message);
}

/** What esm-tools.mjs prints when it is imported. */
const LOADING = 'esm-tools: loading\n';

const esmTools = `import { Toolset, tool } from '@anytool/core';
console.log('esm-tools: loading');
export const add = tool(({ a, b }) => {
  console.log('add was called');
  return String(a + b);
}, { name: 'add', description: 'Adds two numbers.\\nMore detail on a second line.', parameters: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] } });
export const weather = tool(({ city }) => ({ city, temperatureC: 21, tags: ['dry'] }), { name: 'weather', description: 'Current weather for a city.', parameters: { type: 'object', properties: { city: { type: 'string', minLength: 2 }, unit: { type: 'string', enum: ['C', 'F'], default: 'C' } }, required: ['city'] } });
export const broken = tool(() => { throw new Error('the backend is down'); }, { name: 'broken', description: 'Always fails.', parameters: { type: 'object', properties: {} } });
export function helper() {}
`;

// The shape the issue reported: a CommonJS module exporting a tool and a Toolset holding it.
const cjsToolset = `const { Toolset, tool } = require('@anytool/core');
const t = tool(({ text }) => text.toUpperCase(), { name: 'shout', description: 'Upper-cases text.', parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } });
module.exports = { t, set: new Toolset(t) };
`;

// A class with a tool method, exported in a way Node cannot detect the names of.
const cjsHidden = `const { defineTool } = require('@anytool/core');
class Clock {
  now({ zone }) { return { zone, time: '12:00' }; }
}
defineTool(Clock, 'now', { description: 'The time in a zone.', parameters: { type: 'object', properties: { zone: { type: 'string' } }, required: ['zone'] } });
Object.assign(module.exports, { clock: new Clock(), VERSION: '1.0' });
`;

const noTools = `export function helper() {}
export class Weather {}
export const VERSION = '1.0';
export const config = { retries: 3 };
`;

beforeAll(() => {
  for (const file of [
    join(schemaRoot, 'dist', 'cjs', 'cli', 'main.js'),
    join(repoRoot, 'packages', 'core', 'dist', 'cjs', 'index.js'),
    join(repoRoot, 'packages', 'mcp', 'dist', 'esm', 'index.js'),
  ]) {
    if (!existsSync(file)) throw new Error(`${file} is missing: run \`npm run build\` first`);
  }
  dir = scratchDir('cli');
  const files: Record<string, string> = {
    'esm-tools.mjs': esmTools,
    'cjs-toolset.cjs': cjsToolset,
    'cjs-hidden.cjs': cjsHidden,
    'no-tools.mjs': noTools,
    'empty-set.mjs': `import { Toolset } from '@anytool/core';\nexport const set = new Toolset();\n`,
    'throws.mjs': `export const x = 1;\nthrow new Error('DATABASE_URL is not set\\nsee the README');\n`,
    'syntax.cjs': `const x = ;\n`,
    'missing-dependency.mjs': `import 'a-package-that-is-not-installed';\n`,
    // An enum: the type stripping of newer Node versions refuses it too, so no Node loads this file.
    'tools.ts': `export enum Unit { C, F }\nexport const x: number = 1;\n`,
    'tsconfig.bad.json': `{ "compilerOptions": { "target": "es2099" }, "files": ["tools.ts"] }\n`,
  };
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
});

afterAll(removeScratchDirs);

describe("anytool --help, --version and each command's help", () => {
  it('prints the usage for --help, -h and help (stdout, exit 0), and on stderr with exit 2 when no command is given', () => {
    for (const args of [['--help'], ['-h'], ['help']]) {
      const run = anytool(args);
      expect(run).toEqual({ code: 0, stdout: expect.stringMatching(/^Usage: anytool <command>/), stderr: '' });
      for (const command of ['build', 'schema', 'list', 'call', 'serve']) expect(run.stdout).toContain(`anytool ${command} `);
      expect(run.stdout).toContain('ANYTOOL_DEBUG=1');
    }
    const bare = anytool([]);
    expect(bare).toEqual({ code: 2, stdout: '', stderr: expect.stringMatching(/^Usage: anytool <command>/) });
  });

  it('prints the version of @anytool/schema for --version and -v', () => {
    const { version } = JSON.parse(readFileSync(join(schemaRoot, 'package.json'), 'utf8')) as { version: string };
    expect(anytool(['--version'])).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });
    expect(anytool(['-v'])).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });
  });

  it("prints each command's own usage for <command> --help, and does nothing else", () => {
    for (const [command, flag] of [
      ['build', '--help'],
      ['schema', '--help'],
      ['list', '-h'],
      ['call', '--help'],
      ['serve', '-h'],
      ['schema', '-h'],
    ] as const) {
      const run = anytool([command, flag]);
      expect({ command, flag, ...run }).toEqual({
        command,
        flag,
        code: 0,
        stdout: expect.stringMatching(new RegExp(`^Usage: anytool ${command} `)),
        stderr: '',
      });
    }
    // `build --help` in a directory with a tsconfig prints help; it does not compile.
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { outDir: 'out' }, files: ['tools.ts'] }));
    expect(anytool(['build', '-p', 'tsconfig.json', '--help']).code).toBe(0);
    expect(existsSync(join(dir, 'out'))).toBe(false);
  });
});

describe('usage errors: one line on stderr, no stack trace, exit 2', () => {
  it('for an unknown command or option, and missing arguments', () => {
    expectUsageError(anytool(['frobnicate']), 'anytool: unknown command "frobnicate"; the commands are build, schema, list, call and serve');
    expectUsageError(anytool(['--frobnicate']), 'anytool: unknown option --frobnicate; run anytool --help');
    expectUsageError(anytool(['list', 'esm-tools.mjs', '--bogus']), 'anytool list: unknown option --bogus; run anytool list --help for the usage');
    expectUsageError(anytool(['list']), 'anytool list: name the module: anytool list <module.js>');
    expectUsageError(
      anytool(['list', 'esm-tools.mjs', '--format', 'cohere']),
      'anytool list: unknown format "cohere"; use one of neutral, openai, openai-responses, anthropic, gemini, mcp',
    );
    expectUsageError(anytool(['list', 'esm-tools.mjs', '--format']), 'anytool list: --format needs a value');
    expectUsageError(anytool(['call', 'esm-tools.mjs']), 'anytool call: name the tool: anytool call <module.js> <tool>');
    expectUsageError(anytool(['call', 'esm-tools.mjs', 'add', '{}', '{}']), 'anytool call: pass the arguments as one JSON object');
    expectUsageError(anytool(['schema']), 'anytool schema: name the file: anytool schema <file.ts>');
    expectUsageError(anytool(['serve', 'esm-tools.mjs', '--bogus']), 'anytool serve: unknown option --bogus; run anytool serve --help for the usage');
  });

  it('names the command, option or format a typo most likely meant', () => {
    expectUsageError(anytool(['biuld']), 'anytool: unknown command "biuld"; did you mean build? (anytool --help)');
    expectUsageError(anytool(['--verison']), 'anytool: unknown option --verison (did you mean --version?); run anytool --help for the usage');
    expectUsageError(
      anytool(['list', 'esm-tools.mjs', '--fromat', 'openai']),
      'anytool list: unknown option --fromat (did you mean --format?); run anytool list --help for the usage',
    );
    expectUsageError(
      anytool(['list', 'esm-tools.mjs', '--format', 'antropic']),
      'anytool list: unknown format "antropic"; did you mean anthropic? use one of neutral, openai, openai-responses, anthropic, gemini, mcp',
    );
    expectUsageError(
      anytool(['call', 'esm-tools.mjs', 'add', '{}', '--exprot', 'x']),
      'anytool call: unknown option --exprot (did you mean --export?); run anytool call --help for the usage',
    );
    expectUsageError(
      anytool(['serve', 'esm-tools.mjs', '--htp']),
      'anytool serve: unknown option --htp (did you mean --http?); run anytool serve --help for the usage',
    );
  });

  it('for a missing file, a directory, TypeScript that was not built', () => {
    expectUsageError(
      anytool(['schema', 'nowhere.ts']),
      'anytool schema: there is no file nowhere.ts; check the path, which is relative to the current directory',
    );
    expectUsageError(anytool(['list', 'nowhere.js']), /^anytool list: cannot load nowhere\.js: there is no such file \(\S+nowhere\.js\); check the path/);
    expectUsageError(anytool(['call', 'nowhere.js', 'add']), 'anytool call: cannot load nowhere.js: there is no such file');
    expectUsageError(anytool(['list', '.']), 'anytool list: cannot load .: it is a directory; name the JavaScript file');
    expectUsageError(
      anytool(['list', 'tools.ts']),
      /^anytool list: cannot load tools\.ts: .+; build TypeScript to JavaScript first \(anytool build\) and pass the compiled \.js file( \(ANYTOOL_DEBUG=1 prints the stack trace\))?\n$/,
    );
  });

  it('for a module that throws, does not parse or imports what is not installed, naming where', () => {
    const throws = anytool(['list', 'throws.mjs']);
    expectUsageError(
      throws,
      'anytool list: cannot load throws.mjs: DATABASE_URL is not set (at line 2, column 7); fix the module (ANYTOOL_DEBUG=1 prints the stack trace)',
    );
    expect(throws.stderr).not.toContain('see the README');
    expectUsageError(anytool(['list', 'syntax.cjs']), "anytool list: cannot load syntax.cjs: SyntaxError: Unexpected token ';' (at line 1); fix the module");
    expectUsageError(
      anytool(['call', 'missing-dependency.mjs', 'x']),
      "anytool call: cannot load missing-dependency.mjs: Cannot find package 'a-package-that-is-not-installed'",
    );
    expectUsageError(anytool(['call', 'missing-dependency.mjs', 'x']), 'install the package it imports, or fix the import');
  });

  it('for a module with no tools, saying what it exports and what counts as tools', () => {
    expectUsageError(
      anytool(['list', 'no-tools.mjs']),
      'anytool list: no-tools.mjs exports no tools; it exports VERSION (a string), Weather (a class with no @Tool methods), config (a plain object), helper (a function: wrap it with tool() to make it a tool); ' +
        'tools are tool() and defineTool() tools, BaseTool instances, instances of classes with @Tool methods (not the classes), arrays of them and Toolsets',
    );
    expectUsageError(anytool(['list', 'empty-set.mjs']), 'anytool list: empty-set.mjs exports a Toolset that holds no tools');
    expectUsageError(
      anytool(['list', 'esm-tools.mjs', '--export', 'helper']),
      'anytool list: export "helper" of esm-tools.mjs holds no tools: it is a function',
    );
    expectUsageError(
      anytool(['list', 'esm-tools.mjs', '--export', 'nope']),
      'anytool list: esm-tools.mjs has no export "nope"; it exports add (a tool (add)),',
    );
  });

  it('for bad JSON (naming the position), arguments that are not an object, and an unknown tool', () => {
    expectUsageError(
      anytool(['call', 'esm-tools.mjs', 'add', '{"a": 1,}']),
      'anytool call: the arguments are not valid JSON: unexpected "}" at position 8 (line 1, column 9); pass one JSON object',
    );
    expectUsageError(anytool(['call', 'esm-tools.mjs', 'add', '{"a": 1,\n "b": tru}']), 'unexpected "t" at position 15 (line 2, column 7)');
    expectUsageError(anytool(['call', 'esm-tools.mjs', 'add', '{"a": 1']), 'the arguments are not valid JSON: it ends too early (at position 7)');
    expectUsageError(anytool(['call', 'esm-tools.mjs', 'add', '-'], { input: '' }), 'the arguments are not valid JSON: it is empty');
    expectUsageError(anytool(['call', 'esm-tools.mjs', 'add', '[1, 2]']), 'anytool call: the arguments must be a JSON object (named arguments), got an array');
    expectUsageError(
      anytool(['call', 'esm-tools.mjs', 'multiply', '{}']),
      'anytool call: esm-tools.mjs has no tool "multiply"; its tools are add, broken, weather (anytool list esm-tools.mjs shows them)',
    );
  });

  it("for a tsconfig that cannot be read or is broken (tsc's message, one line)", () => {
    expectUsageError(anytool(['build', '-p', 'nowhere.json']), /^anytool build: error TS5083: Cannot read file '\S+nowhere\.json'\.\n$/);
    expectUsageError(
      anytool(['build', '-p', 'tsconfig.bad.json']),
      /^anytool build: tsconfig\.bad\.json\(1,34\): error TS6046: Argument for '--target' option must be/,
    );
    expectUsageError(anytool(['build', '--frobnicate']), "anytool build: error TS5023: Unknown compiler option '--frobnicate'.");
    expectUsageError(
      anytool(['schema', 'tools.ts', '-p', 'tsconfig.bad.json']),
      /^anytool schema: cannot read tsconfig\.bad\.json: tsconfig\.bad\.json\(1,34\): error TS6046/,
    );
  });

  it("prints the stack trace, and the cause's, with ANYTOOL_DEBUG=1", () => {
    const run = anytool(['list', 'throws.mjs'], { env: { ANYTOOL_DEBUG: '1' } });
    expect(run.code).toBe(2);
    const [first, ...rest] = run.stderr.split('\n');
    expect(first).toBe('anytool list: cannot load throws.mjs: DATABASE_URL is not set (at line 2, column 7); fix the module');
    expect(rest.join('\n')).toMatch(/^AnytoolError: cannot load throws\.mjs/);
    expect(rest.join('\n')).toMatch(/Caused by: Error: DATABASE_URL is not set\nsee the README\n\s+at \S*throws\.mjs:2:7/);
  });
});

describe('anytool list <module>', () => {
  it('prints a table of names and first lines of descriptions; what the module prints goes to stderr', () => {
    const run = anytool(['list', 'esm-tools.mjs']);
    expect(run.code).toBe(0);
    // An ES module's exports come in name order.
    expect(run.stdout).toBe(
      ['NAME     DESCRIPTION', 'add      Adds two numbers. …', 'broken   Always fails.', 'weather  Current weather for a city.', ''].join('\n'),
    );
    expect(run.stderr).toBe(LOADING);
  });

  it('lists a CommonJS module: module.exports = { t, set: new Toolset(t) }, and names Node cannot detect', () => {
    expect(anytool(['list', 'cjs-toolset.cjs'])).toEqual({ code: 0, stdout: 'NAME   DESCRIPTION\nshout  Upper-cases text.\n', stderr: '' });
    expect(anytool(['list', 'cjs-hidden.cjs'])).toEqual({ code: 0, stdout: 'NAME  DESCRIPTION\nnow   The time in a zone.\n', stderr: '' });
    expect(anytool(['list', 'cjs-hidden.cjs', '--export', 'clock']).stdout).toContain('now ');
  });

  it('prints the definitions in each provider format with --format, as lowerDefinitions makes them', () => {
    const neutralRun = anytool(['list', 'esm-tools.mjs', '--format', 'neutral']);
    expect(neutralRun.code).toBe(0);
    const neutral = JSON.parse(neutralRun.stdout) as ToolDefinition[];
    expect(neutral.map((d) => d.name)).toEqual(['add', 'broken', 'weather']);
    expect(neutral[2]!.parameters).toEqual({
      type: 'object',
      properties: { city: { type: 'string', minLength: 2 }, unit: { type: 'string', enum: ['C', 'F'], default: 'C' } },
      required: ['city'],
    });
    expect(JSON.parse(anytool(['list', 'esm-tools.mjs', '--json']).stdout)).toEqual(neutral);
    expect(JSON.parse(anytool(['list', 'esm-tools.mjs', '--format=neutral']).stdout)).toEqual(neutral);

    const shapes: Record<string, (tool: Record<string, unknown>) => unknown> = {
      openai: (t) => (t['function'] as { name: string }).name,
      'openai-responses': (t) => t['name'],
      anthropic: (t) => t['input_schema'] !== undefined && t['name'],
      gemini: (t) => t['parametersJsonSchema'] !== undefined && t['name'],
      mcp: (t) => t['inputSchema'] !== undefined && t['name'],
    };
    for (const format of ['openai', 'openai-responses', 'anthropic', 'gemini', 'mcp'] as const) {
      const run = anytool(['list', 'esm-tools.mjs', '--format', format]);
      expect({ format, code: run.code }).toEqual({ format, code: 0 });
      const tools = JSON.parse(run.stdout) as Array<Record<string, unknown>>;
      const lowered = lowerDefinitions(format, neutral);
      expect(tools).toEqual(JSON.parse(JSON.stringify(lowered.tools)));
      expect(tools.map(shapes[format]!)).toEqual(['add', 'broken', 'weather']);
      // What the lowering dropped or changed is noted on stderr, after what the module printed.
      const notes = run.stderr.split('\n').filter((line) => line.startsWith('anytool list:'));
      expect(notes).toHaveLength(lowered.notes.length);
    }
    // OpenAI strict mode cannot keep `minLength`: a note says so.
    expect(anytool(['list', 'esm-tools.mjs', '--format', 'openai']).stderr).toMatch(
      /^anytool list: openai: weather \/properties\/city\/minLength: dropped, "minLength" is not supported in strict mode/m,
    );
  });
});

describe('anytool call <module> <tool> <json>', () => {
  it('prints a text result as text, with what the tool printed on stderr', () => {
    expect(anytool(['call', 'esm-tools.mjs', 'add', '{"a": 2, "b": 3}'])).toEqual({ code: 0, stdout: '5\n', stderr: 'esm-tools: loading\nadd was called\n' });
  });

  it('prints structured content as JSON', () => {
    const run = anytool(['call', 'esm-tools.mjs', 'weather', '{"city": "Oslo"}']);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ city: 'Oslo', temperatureC: 21, tags: ['dry'] });
  });

  it('reads the arguments from stdin with -', () => {
    expect(anytool(['call', 'esm-tools.mjs', 'add', '-'], { input: '{"a": 40,\n "b": 2}\n' }).stdout).toBe('42\n');
  });

  it("calls a CommonJS module's tools", () => {
    expect(anytool(['call', 'cjs-toolset.cjs', 'shout', '{"text":"hi"}'])).toEqual({ code: 0, stdout: 'HI\n', stderr: '' });
    expect(JSON.parse(anytool(['call', 'cjs-hidden.cjs', 'now', '{"zone":"UTC"}']).stdout)).toEqual({ zone: 'UTC', time: '12:00' });
  });

  it('exits with 1 and prints the text on stderr for an error result: the tool failed, or the arguments do not match', () => {
    const failed = anytool(['call', 'esm-tools.mjs', 'broken']);
    expect(failed.code).toBe(1);
    expect(failed.stdout).toBe('');
    expect(failed.stderr).toBe('esm-tools: loading\nTool "broken" failed: the backend is down\n');
    const invalid = anytool(['call', 'esm-tools.mjs', 'add', '{"a": "two"}']);
    expect(invalid.code).toBe(1);
    expect(invalid.stdout).toBe('');
    expect(invalid.stderr).toContain('Invalid arguments for tool "add"');
    expect(invalid.stderr).toContain('/a: must be number');
  });
});

describe('with only @anytool/core and @anytool/schema installed', () => {
  // A project outside the repository: its node_modules has the schema package (copied) and core, nothing else
  // (no @anytool/mcp, no typescript: list and call load neither).
  let project: string;

  beforeAll(() => {
    project = mkdtempSync(join(tmpdir(), 'anytool-cli-'));
    const schema = join(project, 'node_modules', '@anytool', 'schema');
    mkdirSync(schema, { recursive: true });
    for (const part of ['bin', 'dist', 'package.json']) cpSync(join(schemaRoot, part), join(schema, part), { recursive: true });
    symlinkSync(join(repoRoot, 'packages', 'core'), join(project, 'node_modules', '@anytool', 'core'), 'dir');
    writeFileSync(join(project, 'tools.mjs'), esmTools);
  });

  afterAll(() => rmSync(project, { recursive: true, force: true }));

  const installed = (args: readonly string[]): Run => {
    const run = spawnSync(process.execPath, [join(project, 'node_modules', '@anytool', 'schema', 'bin', 'anytool.mjs'), ...args], {
      cwd: project,
      encoding: 'utf8',
      env: { ...process.env, ANYTOOL_DEBUG: '' },
      timeout: 30_000,
    });
    return { code: run.status, stdout: run.stdout, stderr: run.stderr };
  };

  it('lists and calls tools', () => {
    expect(installed(['list', 'tools.mjs']).stdout).toContain('weather  Current weather for a city.');
    expect(installed(['call', 'tools.mjs', 'add', '{"a": 1, "b": 1}'])).toEqual({ code: 0, stdout: '2\n', stderr: 'esm-tools: loading\nadd was called\n' });
  });

  it('says in one line that serve needs @anytool/mcp', () => {
    expectUsageError(installed(['serve', 'tools.mjs']), 'anytool serve: @anytool/mcp is not installed; install it next to @anytool/schema: npm i @anytool/mcp');
  });
});
