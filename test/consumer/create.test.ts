// `npm create anytool@latest <folder>` as a user runs it, from the packed create-anytool in an empty folder outside
// the repository: each template written and installed (the three at once), then `npm start` and `npm test` in it.
// `npm create anytool` runs `npm exec` of the create-anytool package; until it is published, that package is the
// tarball, and CREATE_ANYTOOL_PACKAGES points the projects' @anytool/* dependencies at the packed tarballs.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ok, packed, removeScratch, run, scratch, typeScriptCopies, userEnv, type Ran } from './project';

jest.setTimeout(300_000);

const TEMPLATES = ['agent', 'mcp-server', 'tools'] as const;
type Template = (typeof TEMPLATES)[number];

let base: string | undefined;
let tarballs: Record<string, string> = {};
const created = new Map<Template, Ran>();
const tested = new Map<Template, Ran>();

const env = (): NodeJS.ProcessEnv => ({ ...userEnv(), CREATE_ANYTOOL_PACKAGES: dirname(tarballs['create-anytool']!) });

/** `npm create anytool@latest <args>`, with the packed create-anytool standing in for the published one. */
const npmCreate = (args: readonly string[], cwd: string, extraEnv: NodeJS.ProcessEnv = {}): Promise<Ran> =>
  run('npm', ['exec', '--yes', `--package=${tarballs['create-anytool']!}`, '--', 'create-anytool', ...args], cwd, { env: { ...env(), ...extraEnv } });

const project = (template: Template): string => join(base!, 'empty', `my-${template}`);

beforeAll(async () => {
  base = scratch();
  tarballs = await packed(join(base, 'packs'));
  mkdirSync(join(base, 'empty'));
  // The three at once, each written, installed and tested: mostly waiting on npm and on one build each.
  await Promise.all(
    TEMPLATES.map(async (template) => {
      // npm's requests logged (`http`): what its install fetched from the registry.
      const args = template === 'agent' ? ['my-agent'] : [`my-${template}`, '--template', template];
      const ran = await npmCreate(args, join(base!, 'empty'), { npm_config_loglevel: 'http' });
      created.set(template, ran);
      if (ran.code === 0) tested.set(template, await run('npm', ['test'], project(template), { env: env() }));
    }),
  );
}, 600_000);

afterAll(() => removeScratch(base));

describe.each(TEMPLATES.map((t) => [t] as const))('the %s template', (template) => {
  test('is written and installed by one command, asking nothing', () => {
    const ran = ok(created.get(template)!, `npm create anytool my-${template}`);
    expect(ran.stdout).toContain(`Wrote the ${template} template to my-${template}.`);
    expect(ran.stdout).toContain(`cd my-${template}`);
    const manifest = JSON.parse(readFileSync(join(project(template), 'package.json'), 'utf8')) as { name: string; scripts: Record<string, string> };
    expect(manifest.name).toBe(`my-${template}`);
    expect(Object.keys(manifest.scripts)).toEqual(expect.arrayContaining(['start', 'test']));
    expect(existsSync(join(project(template), '.gitignore'))).toBe(true);
    expect(existsSync(join(project(template), 'node_modules', '@anytool', 'core', 'package.json'))).toBe(true);
  });

  test('npm installs the tree of the lockfile the template ships, reading no package metadata from the registry', () => {
    type Lock = { packages: Record<string, { version?: string; resolved?: string }> };
    const versions = (lock: Lock): Record<string, string | undefined> =>
      Object.fromEntries(Object.entries(lock.packages).map(([path, entry]) => [path, path === '' ? undefined : entry.version]));
    const shipped = JSON.parse(
      readFileSync(join(__dirname, '..', '..', 'packages', 'create-anytool', 'templates', template, 'package-lock.json'), 'utf8'),
    ) as Lock;
    const installed = JSON.parse(readFileSync(join(project(template), 'package-lock.json'), 'utf8')) as Lock;
    expect(versions(installed)).toEqual(versions(shipped));
    // Its @anytool/* packages are the tarballs under test, the rest the registry's.
    const anytool = Object.entries(installed.packages).filter(([path]) => path.startsWith('node_modules/@anytool/'));
    expect(anytool.length).toBeGreaterThan(0);
    for (const [path, entry] of anytool) expect([path, entry.resolved]).toEqual([path, expect.stringMatching(/^file:.*anytool-[a-z]+-[^/]+\.tgz$/)]);
    // A tarball not cached yet is downloaded; a package's metadata (a URL without `/-/`) never is.
    const fetched = created
      .get(template)!
      .stderr.split('\n')
      .filter((line) => /\bhttp fetch GET\b/.test(line));
    expect(fetched.filter((line) => !line.includes('/-/'))).toEqual([]);
  });

  test("its tree holds one TypeScript: the build step compiles with the project's own", () => {
    expect(typeScriptCopies(project(template))).toEqual(['node_modules/typescript']);
  });

  test('`npm test` builds it and its tests pass', () => {
    const ran = ok(tested.get(template) ?? ok(created.get(template)!, `npm create anytool my-${template}`), `npm test in my-${template}`);
    const output = `${ran.stdout}\n${ran.stderr}`;
    expect(output).toMatch(/# fail 0|ℹ fail 0/);
    expect(Number(/(?:# |ℹ )pass (\d+)/.exec(output)?.[1] ?? 0)).toBeGreaterThanOrEqual(3);
  });

  if (template === 'agent') {
    test('`npm start` builds it and runs the agent: a local tool and the MCP server tool called, the answer printed', async () => {
      const started = ok(await run('npm', ['start'], project(template), { env: env() }), 'npm start');
      expect(started.stdout).toContain('Running on a scripted model (set OPENAI_API_KEY to use a real one).');
      expect(started.stdout).toContain('17 + 25 = 42, and a 42.195 km marathon is 26.22 miles.');
      expect(started.stderr).not.toMatch(/warning|error/i);
    });

    test('with OPENAI_API_KEY set and no `openai` installed, one line says what to install', async () => {
      const ran = await run(process.execPath, ['dist/main.js'], project(template), { env: { ...env(), OPENAI_API_KEY: 'sk-test' } });
      expect([ran.code, ran.stderr.trim()]).toEqual([1, 'OPENAI_API_KEY is set, but the `openai` client is not installed: run npm i openai']);
    });
  }

  if (template === 'tools') {
    test('`npm start` builds it and lists the tools', async () => {
      const started = ok(await run('npm', ['start'], project(template), { env: env() }), 'npm start');
      expect(started.stdout).toMatch(/countWords\s+Count the words of a text\./);
      expect(started.stdout).toMatch(/slugify\s+Make a URL slug/);
      expect(started.stdout).toMatch(/repeat\s+Repeat a text/);
    });
  }

  if (template === 'mcp-server') {
    test('`npm start` builds it and serves the tools over streamable HTTP', async () => {
      const child = spawn('npm', ['start'], { cwd: project(template), env: { ...env(), PORT: '0' }, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
      let output = '';
      try {
        const url = await new Promise<string>((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error(`npm start printed no URL in 120 s:\n${output}`)), 120_000);
          const read = (chunk: Buffer): void => {
            output += String(chunk);
            const match = /MCP server at (http:\/\/\S+)/.exec(output);
            if (match !== null) {
              clearTimeout(timer);
              resolve(match[1]!);
            }
          };
          child.stdout.on('data', read);
          child.stderr.on('data', read);
          child.on('exit', (code) => reject(new Error(`npm start exited ${code}:\n${output}`)));
        });
        const client = new Client({ name: 'consumer-test', version: '1.0.0' });
        await client.connect(new StreamableHTTPClientTransport(new URL(url)));
        try {
          expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(['addNote', 'listNotes']);
          const added = await client.callTool({ name: 'addNote', arguments: { text: 'from the test' } });
          expect(JSON.stringify(added.content)).toContain('from the test');
        } finally {
          await client.close();
        }
      } finally {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        process.kill(-child.pid!, 'SIGTERM');
        await exited;
      }
    });
  }
});

describe('its command line', () => {
  test('a mistyped template or option is one line naming the choices, exit 2; nothing is written', async () => {
    const cwd = join(base!, 'empty');
    const template = await npmCreate(['typo', '--template', 'mcp'], cwd);
    expect([template.code, template.stderr.trim()]).toEqual([
      2,
      'create-anytool: unknown template "mcp"; did you mean mcp-server? the templates are agent, mcp-server, tools (create-anytool --help)',
    ]);
    const option = await npmCreate(['typo', '--tempalte', 'tools'], cwd);
    expect(option.code).toBe(2);
    expect(option.stderr.trim()).toBe('create-anytool: unknown option --tempalte; did you mean --template? (create-anytool --help)');
    expect(existsSync(join(cwd, 'typo'))).toBe(false);
  });

  test('refuses a folder that holds files', async () => {
    const cwd = join(base!, 'empty');
    mkdirSync(join(cwd, 'taken'));
    writeFileSync(join(cwd, 'taken', 'notes.txt'), 'mine\n');
    const ran = await npmCreate(['taken', '--no-install'], cwd);
    expect([ran.code, ran.stderr.trim()]).toEqual([2, 'create-anytool: taken already holds files; name a new or empty folder']);
    expect(readFileSync(join(cwd, 'taken', 'notes.txt'), 'utf8')).toBe('mine\n');
  });
});
