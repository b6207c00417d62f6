// `npm run bench:first-call`: from an empty folder to a first tool call, as a new user following
// each framework's own getting-started docs: anytool (by hand, and through `npm create anytool`), the Vercel AI SDK
// (`ai`, with zod) and the OpenAI Agents SDK (`@openai/agents`, with zod), doing the same task.
//
// Run: node bench/first-tool-call.mjs [--runs 3] [--only anytool,anytool-create,ai-sdk,agents-sdk]
// Needs the npm registry (the peers' packages, and the anytool packages' dependencies).
//
// The task, the same for all three: one tool `add(a: number, b: number)` with the
// description "Add two numbers.", called once with {a: 17, b: 25} by a model turn
// WITHOUT a hosted model, and the tool's result (42) printed. Each framework documents a
// model double for this, and the call goes through the framework's own path (the model's
// arguments are checked against the tool's schema, the tool runs, its result comes back):
//
// - anytool: `ScriptedModel` and `Agent` from `@anytool/agent`, the first example of
//   docs/getting-started.md ("A first agent", the same 17 + 25), with the tool defined by
//   its types and JSDoc and `tool(add)`, as that page and docs/defining-tools.md say, built
//   by `anytool build` (docs/build-setup.md). No hand-written schema, no decorator.
// - AI SDK: its Node.js quickstart (docs/02-getting-started/06-nodejs.mdx in the `ai`
//   package) for the project: `pnpm init`, `pnpm add ai zod dotenv`, `pnpm add -D
//   @types/node tsx typescript`, an `index.ts` run with `pnpm tsx index.ts` (typed here
//   with npm: `npm init -y`, `npm install ...`, `npx tsx index.ts`), its `main()` wrapper
//   (tsx runs the file as CommonJS, where top-level await is refused). The tool is the
//   quickstart's `tool({ description, inputSchema: z.object(...), execute })`; the offline
//   call is the Testing page's (docs/03-ai-sdk-core/55-testing.mdx) `generateText` with
//   `MockLanguageModelV3` from `ai/test` returning one `tool-call`, usage object as shown
//   there; `generateText` stops after that one step and `result.toolResults[0].output` is
//   the tool's result. Calling `tool.execute(...)` directly is documented only for MCP
//   tools and skips the schema check, so it is not used.
// - OpenAI Agents SDK: its quickstart (guides/quickstart): `npm init -y`, `npm install
//   @openai/agents zod`, the code in an `index.js` "and run it": `node index.js`. npm's
//   `init -y` writes `"type": "commonjs"`, where the quickstart's `import` lines fail with
//   "Cannot use import statement outside a module"; Node's message says to set
//   `"type": "module"`, which the user then does (`npm pkg set type=module`, counted as a
//   step; the docs do not say it). The tool is the quickstart's `tool({ name,
//   description, parameters: z.object(...), execute })`; the offline call is the Testing
//   guide's `ScriptedModel` + `functionCall(...)` from `@openai/agents/testing` with a
//   `Runner({ tracingDisabled: true })`, and `toolUseBehavior: 'stop_on_first_tool'`
//   (Agents guide, "forcing tool use") so that the run's `finalOutput` is the tool's
//   result after one model turn. (`invokeFunctionTool` calls a tool directly, but the AI
//   SDK has no documented equivalent, so all three go through a model turn.)
//
// - anytool via `npm create` (the `create` path): `npm create anytool@latest my-agent`, then `npm start` in
//   it, as packages/create-anytool/README.md says. The user writes no line: the agent template has `@Tool` methods
//   (`add` among them), an MCP server's tool, and a scripted model whose answer carries the `add` result, 42; the
//   last command must print a line with "17 + 25 = 42"; a second `npm start` (the project unchanged) is timed and
//   shown beside them, not counted. `cd my-agent` is a change of folder in the user's shell,
//   not a command run (the others' folder is made for them too). Until create-anytool is published, the `npm
//   create` step runs the packed create-anytool the way `npm create` runs the published one (`npm exec` of the
//   package), with CREATE_ANYTOOL_PACKAGES pointing the project's `@anytool/*` dependencies at the tarballs.
//
// API keys: none of the three needs one for this task; the docs' key steps (`.env` with
// AI_GATEWAY_API_KEY, `export OPENAI_API_KEY`) are left out of all of them.
//
// anytool is not published yet: the repository is built (`npm run build`) and packed
// (`npm pack --workspaces`) first, and the `@anytool/*` names in the steps below are
// installed from those tarballs' paths. That preparation is not timed.
//
// What is measured, for each framework, in a fresh empty folder under the system temp
// folder (never in the repository): each step as the user types it, run one after the
// other, each command's wall-clock time; the count of commands typed; the files the user
// writes and their non-blank lines (source files only: package.json and lockfiles are
// written by npm; a tsconfig edit would count, none is needed). Code is formatted the way
// prettier formats it (80 columns, single quotes), the style of both peers' docs.
// npm runs with a private cache in the temp folder: a warm-up round (one full run of each
// framework, shown but not counted) fills it, then every framework runs `--runs` times,
// interleaved, the order rotating each round; medians and min-max are reported. So the
// install times are "warm cache" times: npm still asks the registry for package metadata
// but downloads no tarball twice. npm audit and fund are off for all three. The Node that
// runs this script runs every step. Everything is removed at the end, on failure and on
// Ctrl-C too; each command has a time limit, and the whole run a deadline.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

// ---------------------------------------------------------------------------------------
// The steps, as a user types them. `{ run }` is a command line (split on spaces, no shell);
// `{ write, text }` is a file the user writes; `prints` is what the last command must print.
// ---------------------------------------------------------------------------------------

const ANYTOOL_MAIN = `import { resultText, tool } from '@anytool/core';
import { Agent, ScriptedModel, latestToolResults } from '@anytool/agent';

/** Add two numbers. */
function add(a: number, b: number): number {
  return a + b;
}

const model = new ScriptedModel([
  { toolCalls: [{ name: 'add', arguments: { a: 17, b: 25 } }] },
  (request) => ({ text: resultText(latestToolResults(request)[0]!.result) }),
]);

const agent = new Agent({ model, tools: [tool(add)] });
const result = await agent.run('What is 17 + 25?');
console.log(result.text);
`;

const AI_SDK_INDEX = `import { generateText, tool } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { z } from 'zod';

const add = tool({
  description: 'Add two numbers.',
  inputSchema: z.object({ a: z.number(), b: z.number() }),
  execute: async ({ a, b }) => a + b,
});

const model = new MockLanguageModelV3({
  doGenerate: async () => ({
    content: [
      {
        type: 'tool-call',
        toolCallId: 'call-1',
        toolName: 'add',
        input: JSON.stringify({ a: 17, b: 25 }),
      },
    ],
    finishReason: { unified: 'tool-calls', raw: undefined },
    usage: {
      inputTokens: {
        total: 10,
        noCache: 10,
        cacheRead: undefined,
        cacheWrite: undefined,
      },
      outputTokens: { total: 5, text: 5, reasoning: undefined },
    },
    warnings: [],
  }),
});

async function main() {
  const result = await generateText({
    model,
    tools: { add },
    prompt: 'What is 17 + 25?',
  });
  console.log(result.toolResults[0].output);
}

main().catch(console.error);
`;

const AGENTS_SDK_INDEX = `import { Agent, Runner, tool } from '@openai/agents';
import { ScriptedModel, functionCall } from '@openai/agents/testing';
import { z } from 'zod';

const add = tool({
  name: 'add',
  description: 'Add two numbers.',
  parameters: z.object({ a: z.number(), b: z.number() }),
  execute: async ({ a, b }) => a + b,
});

const agent = new Agent({
  name: 'Calculator',
  model: new ScriptedModel([
    [functionCall('add', { a: 17, b: 25 }, { callId: 'call-1' })],
  ]),
  tools: [add],
  toolUseBehavior: 'stop_on_first_tool',
});

const runner = new Runner({ tracingDisabled: true });
const result = await runner.run(agent, 'What is 17 + 25?');
console.log(result.finalOutput);
`;

const FRAMEWORKS = [
  {
    id: 'anytool',
    title: 'anytool',
    docs: 'docs/getting-started.md, docs/build-setup.md, docs/defining-tools.md',
    // ESM: `npx tsc --init` writes module nodenext with verbatimModuleSyntax, under which
    // a "commonjs" package (what `npm init -y` writes) refuses import statements.
    steps: [
      { run: 'npm init -y' },
      { run: 'npm pkg set type=module' },
      { run: 'npm install @anytool/core @anytool/agent' },
      { run: 'npm install -D @anytool/schema typescript@~5.9' },
      { run: 'npx tsc --init' },
      { write: 'src/main.ts', text: ANYTOOL_MAIN },
      { run: 'npx anytool build -p tsconfig.json' },
      { run: 'node src/main.js', prints: '42' },
    ],
    versions: ['@anytool/core', '@anytool/agent', '@anytool/schema', 'typescript'],
  },
  {
    id: 'anytool-create',
    title: 'anytool (npm create)',
    docs: 'packages/create-anytool/README.md',
    steps: [
      { run: 'npm create anytool@latest my-agent' },
      { run: 'npm start', cwd: 'my-agent', prints: /^17 \+ 25 = 42\b/ },
      // A later start, unchanged project: shown, not counted (`anytool build` skips an up-to-date build).
      { run: 'npm start', cwd: 'my-agent', prints: /^17 \+ 25 = 42\b/, later: true },
    ],
    versions: ['@anytool/core', '@anytool/agent', '@anytool/mcp', '@anytool/schema', 'typescript'],
    projectDir: 'my-agent',
  },
  {
    id: 'ai-sdk',
    title: 'Vercel AI SDK',
    docs: 'ai: docs/02-getting-started/06-nodejs.mdx, docs/03-ai-sdk-core/55-testing.mdx',
    steps: [
      { run: 'npm init -y' },
      { run: 'npm install ai zod dotenv' },
      { run: 'npm install -D @types/node tsx typescript' },
      { write: 'index.ts', text: AI_SDK_INDEX },
      { run: 'npx tsx index.ts', prints: '42' },
    ],
    versions: ['ai', 'zod', 'tsx', 'typescript'],
  },
  {
    id: 'agents-sdk',
    title: 'OpenAI Agents SDK',
    docs: '@openai/agents: guides/quickstart, guides/testing, guides/agents (toolUseBehavior)',
    steps: [
      { run: 'npm init -y' },
      { run: 'npm install @openai/agents zod' },
      { write: 'index.js', text: AGENTS_SDK_INDEX },
      { run: 'npm pkg set type=module' },
      { run: 'node index.js', prints: '42' },
    ],
    versions: ['@openai/agents', 'zod', 'openai'],
  },
];

// ---------------------------------------------------------------------------------------

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const argv = process.argv.slice(2);
const option = (name, fallback) => {
  const at = argv.indexOf(`--${name}`);
  return at >= 0 && argv[at + 1] !== undefined ? argv[at + 1] : fallback;
};
const RUNS = Number(option('runs', '3'));
const ONLY = option('only', FRAMEWORKS.map((f) => f.id).join(',')).split(',');
const INSTALL_TIMEOUT_MS = 300_000;
const STEP_TIMEOUT_MS = 120_000;
const DEADLINE_MS = 40 * 60_000;
if (!Number.isInteger(RUNS) || RUNS < 1) fail(`--runs must be a positive integer, got ${option('runs', '')}`);
const frameworks = FRAMEWORKS.filter((f) => ONLY.includes(f.id));
if (frameworks.length === 0) fail(`--only names none of ${FRAMEWORKS.map((f) => f.id).join(', ')}`);

const started = Date.now();
const base = mkdtempSync(join(tmpdir(), 'anytool-first-call-'));
const cache = join(base, 'npm-cache');
let current; // the child process running now, stopped on Ctrl-C
let cleaned = false;

function cleanup() {
  if (cleaned) return;
  cleaned = true;
  if (current !== undefined && current.exitCode === null) killGroup(current);
  rmSync(base, { recursive: true, force: true });
}
process.on('exit', cleanup);
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    cleanup();
    process.exit(130);
  });
}

function fail(message) {
  console.error(`first-tool-call: ${message}`);
  process.exit(2);
}

function killGroup(child) {
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    child.kill('SIGKILL');
  }
}

/** The environment of a user's shell: none of the npm_* variables `npm run` sets, npm's cache in the temp folder. */
function userEnv() {
  const env = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (/^npm_/i.test(key) || key === 'INIT_CWD' || key === 'NODE_OPTIONS' || key === 'NODE_ENV') continue;
    env[key] = value;
  }
  env.PATH = `${dirname(process.execPath)}${delimiter}${env.PATH ?? ''}`;
  env.npm_config_cache = cache;
  env.npm_config_audit = 'false';
  env.npm_config_fund = 'false';
  env.npm_config_update_notifier = 'false';
  // Where create-anytool points the projects' @anytool/* dependencies until they are published (the packed tarballs).
  env.CREATE_ANYTOOL_PACKAGES = join(base, 'packs');
  return env;
}
const env = userEnv();

/** Runs one command line to its end (or its time limit); resolves with its streams and wall-clock seconds. */
function runLine(args, cwd, timeoutMs) {
  return new Promise((resolve) => {
    const begin = process.hrtime.bigint();
    const child = spawn(args[0], args.slice(1), {
      cwd,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
      shell: process.platform === 'win32',
    });
    current = child;
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child);
    }, timeoutMs);
    const done = (code, error) => {
      clearTimeout(timer);
      current = undefined;
      const seconds = Number(process.hrtime.bigint() - begin) / 1e9;
      resolve({ code, stdout, stderr: error === undefined ? stderr : `${stderr}${error.message}\n`, seconds, timedOut });
    };
    child.on('error', (error) => done(null, error));
    child.on('close', (code) => done(code));
  });
}

function tail(text, lines = 15) {
  return text.trim().split('\n').slice(-lines).join('\n');
}

/** Non-blank lines of a file the user writes. */
const linesOf = (text) => text.split('\n').filter((line) => line.trim() !== '').length;

/** Prepares the anytool tarballs: build, then `npm pack --workspaces`; package name -> tarball path. */
function packAnytool() {
  const build = spawnSync('npm', ['run', 'build', '--silent'], { cwd: root, encoding: 'utf8', shell: process.platform === 'win32' });
  if (build.status !== 0) fail(`npm run build failed:\n${tail(`${build.stdout}\n${build.stderr}`)}`);
  const into = join(base, 'packs');
  mkdirSync(into);
  const pack = spawnSync('npm', ['pack', '--workspaces', '--pack-destination', into, '--silent'], {
    cwd: root,
    encoding: 'utf8',
    shell: process.platform === 'win32',
  });
  if (pack.status !== 0) fail(`npm pack --workspaces failed:\n${tail(`${pack.stdout}\n${pack.stderr}`)}`);
  const tarballs = new Map();
  for (const file of readdirSync(into)) {
    const match = /^anytool-([a-z]+)-\d.*\.tgz$/.exec(file);
    if (match !== null) tarballs.set(`@anytool/${match[1]}`, join(into, file));
    if (/^create-anytool-\d.*\.tgz$/.test(file)) tarballs.set('create-anytool', join(into, file));
  }
  return tarballs;
}

/** One run of one framework in a fresh empty folder. */
async function runOnce(framework, label, tarballs) {
  const dir = join(base, `${framework.id}-${label}`);
  mkdirSync(dir);
  const steps = [];
  const engineWarnings = new Set();
  let printed;
  for (const step of framework.steps) {
    if (step.write !== undefined) {
      mkdirSync(dirname(join(dir, step.write)), { recursive: true });
      writeFileSync(join(dir, step.write), step.text);
      steps.push({ step: `write ${step.write}`, seconds: 0 });
      continue;
    }
    if (Date.now() - started > DEADLINE_MS)
      return { ok: false, steps, failure: `stopped at \`${step.run}\`: the ${DEADLINE_MS / 60_000}-minute deadline passed` };
    // Until anytool is published, its package names are installed from the packed tarballs, and `npm create
    // anytool@latest` runs the packed create-anytool as `npm create` runs the published one (npm exec of it).
    let args = step.run.split(' ').map((word) => tarballs.get(word) ?? word);
    if (args[1] === 'create' && args[2] === 'anytool@latest')
      args = ['npm', 'exec', '--yes', `--package=${tarballs.get('create-anytool')}`, '--', 'create-anytool', ...args.slice(3)];
    const timeout = args[1] === 'install' || args[1] === 'exec' ? INSTALL_TIMEOUT_MS : STEP_TIMEOUT_MS;
    const ran = await runLine(args, step.cwd === undefined ? dir : join(dir, step.cwd), timeout);
    steps.push({ step: step.run, seconds: ran.seconds, later: step.later === true });
    for (const match of `${ran.stdout}\n${ran.stderr}`.matchAll(/EBADENGINE\s+package: '([^']+)',\s*\n.*EBADENGINE\s+required: \{ node: '([^']+)' \}/g)) {
      engineWarnings.add(`${match[1]} requires node ${match[2]}`);
    }
    if (ran.code !== 0 || ran.timedOut) {
      const why = ran.timedOut ? `timed out after ${timeout / 1000} s` : `exited ${ran.code}`;
      return { ok: false, steps, failure: `\`${step.run}\` ${why}\n${tail(`${ran.stdout}\n${ran.stderr}`)}`, engineWarnings };
    }
    if (step.prints !== undefined) {
      printed = ran.stdout.trim();
      const matches = (line) => (step.prints instanceof RegExp ? step.prints.test(line.trim()) : line.trim() === step.prints);
      if (!printed.split('\n').some(matches)) {
        return {
          ok: false,
          steps,
          failure: `\`${step.run}\` printed ${JSON.stringify(tail(printed, 5))}, not ${step.prints}\n${tail(ran.stderr)}`,
          engineWarnings,
        };
      }
      printed = printed.split('\n').find(matches).trim();
    }
  }
  const versions = {};
  for (const name of framework.versions) {
    const manifest = join(dir, framework.projectDir ?? '', 'node_modules', name, 'package.json');
    versions[name] = existsSync(manifest) ? JSON.parse(readFileSync(manifest, 'utf8')).version : '(not installed)';
  }
  rmSync(dir, { recursive: true, force: true });
  return { ok: true, steps, printed, versions, engineWarnings };
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const s = (seconds) => seconds.toFixed(1);
const spread = (values) => (values.length > 1 ? `${s(Math.min(...values))}–${s(Math.max(...values))}` : '-');
const total = (run) => run.steps.filter((step) => !step.later).reduce((sum, step) => sum + step.seconds, 0);
/** The commands a user types to get there (a later run of one, shown for what it costs, is not one of them). */
const commandsOf = (framework) => framework.steps.filter((step) => step.run !== undefined && !step.later).length;

async function main() {
  const npmVersion = spawnSync('npm', ['--version'], { encoding: 'utf8', env, shell: process.platform === 'win32' }).stdout.trim();
  console.log(`# First tool call from an empty folder\n`);
  console.log(
    `node ${process.version}, npm ${npmVersion}, ${cpus().length} cores, load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  console.log(`${RUNS} timed run(s) of each framework, interleaved, after one warm-up run each; npm cache warm (filled by the warm-up).\n`);

  const tarballs = frameworks.some((f) => f.id.startsWith('anytool')) ? packAnytool() : new Map();

  const results = new Map(frameworks.map((f) => [f.id, { warmup: undefined, runs: [] }]));
  for (const framework of frameworks) {
    process.stderr.write(`warm-up: ${framework.id} ... `);
    const run = await runOnce(framework, 'warmup', tarballs);
    results.get(framework.id).warmup = run;
    process.stderr.write(run.ok ? `${s(total(run))} s\n` : 'FAILED\n');
  }
  const loads = [];
  for (let round = 0; round < RUNS; round++) {
    // Rotate the order so no framework always runs first (or right after another).
    const order = frameworks.map((_, i) => frameworks[(i + round) % frameworks.length]);
    for (const framework of order) {
      const warm = results.get(framework.id).warmup;
      if (!warm.ok) continue;
      loads.push(loadavg()[0]);
      process.stderr.write(`run ${round + 1}/${RUNS}: ${framework.id} (load ${loadavg()[0].toFixed(2)}) ... `);
      const run = await runOnce(framework, `run${round + 1}`, tarballs);
      results.get(framework.id).runs.push(run);
      process.stderr.write(run.ok ? `${s(total(run))} s\n` : 'FAILED\n');
    }
  }

  // The summary table.
  console.log(`## Summary (seconds: median of the timed runs, min–max)\n`);
  console.log('| framework | commands typed | files written | lines written | setup + install s | build + run s | total s | runs ok |');
  console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  let anyFailed = false;
  for (const framework of frameworks) {
    const { warmup, runs } = results.get(framework.id);
    const commands = commandsOf(framework);
    const files = framework.steps.filter((step) => step.write !== undefined);
    const lines = files.reduce((sum, file) => sum + linesOf(file.text), 0);
    const ok = runs.filter((run) => run.ok);
    if (!warmup.ok || ok.length !== runs.length) anyFailed = true;
    const isInstall = (step) => /^(npm (init|install|pkg|create)|npx tsc --init)\b/.test(step.step);
    const installs = ok.map((run) => run.steps.filter((step) => !step.later && isInstall(step)).reduce((sum, step) => sum + step.seconds, 0));
    const rest = ok.map((run) => run.steps.filter((step) => !step.later && !isInstall(step)).reduce((sum, step) => sum + step.seconds, 0));
    const totals = ok.map(total);
    const cell = (values) => (values.length === 0 ? 'failed' : `${s(median(values))} (${spread(values)})`);
    console.log(
      `| ${framework.title} | ${commands} | ${files.length} | ${lines} | ${cell(installs)} | ${cell(rest)} | ${cell(totals)} | ${ok.length}/${RUNS} |`,
    );
  }

  console.log(`\n1-minute load average when each timed run began: median ${s(median(loads))} (${spread(loads)}) on ${cpus().length} cores.`);
  const created = results.get('anytool-create');
  const peers = frameworks.filter((f) => f.id === 'ai-sdk' || f.id === 'agents-sdk');
  if (created !== undefined && peers.length === 2 && peers.every((f) => results.get(f.id).runs.some((run) => run.ok))) {
    const commands = commandsOf;
    const seconds = (id) =>
      median(
        results
          .get(id)
          .runs.filter((run) => run.ok)
          .map(total),
      );
    const mine = FRAMEWORKS.find((f) => f.id === 'anytool-create');
    const fewest = Math.min(...peers.map(commands));
    const fastest = Math.min(...peers.map((f) => seconds(f.id)));
    console.log(
      `anytool via npm create: ${commands(mine)} commands (the peers: fewest ${fewest}), ` +
        `${created.runs.some((run) => run.ok) ? s(seconds('anytool-create')) : 'failed'} s median (the faster peer: ${s(fastest)} s).`,
    );
  }

  // Each framework's steps, their times, and what it printed.
  for (const framework of frameworks) {
    const { warmup, runs } = results.get(framework.id);
    const ok = runs.filter((run) => run.ok);
    console.log(`\n## ${framework.title}\n`);
    console.log(`Docs followed: ${framework.docs}\n`);
    console.log('| step | median s | min–max s | warm-up s |');
    console.log('| --- | ---: | ---: | ---: |');
    framework.steps.forEach((step, i) => {
      const name = step.run ?? `write ${step.write} (${linesOf(step.text)} lines)`;
      const shown = step.later ? `\`${name}\` again (a later start, not counted)` : `\`${name}\``;
      const times = ok.map((run) => run.steps[i].seconds);
      const warm = warmup.steps[i] === undefined ? '-' : s(warmup.steps[i].seconds);
      if (step.write !== undefined) console.log(`| ${name} | - | - | - |`);
      else console.log(`| ${shown} | ${times.length > 0 ? s(median(times)) : '-'} | ${spread(times)} | ${warm} |`);
    });
    const last = ok.at(-1) ?? (warmup.ok ? warmup : undefined);
    if (last !== undefined) {
      console.log(
        `\nPrinted: ${JSON.stringify(last.printed)}. Versions: ${Object.entries(last.versions)
          .map(([name, version]) => `${name} ${version}`)
          .join(', ')}.`,
      );
    }
    const warnings = new Set([warmup, ...runs].flatMap((run) => [...(run.engineWarnings ?? [])]));
    if (warnings.size > 0) console.log(`npm engine warnings: ${[...warnings].join('; ')}.`);
    for (const run of [warmup, ...runs].filter((r) => !r.ok)) console.log(`\nFAILED: ${run.failure}`);
  }

  console.log('\n## The files written\n');
  for (const framework of frameworks) {
    for (const step of framework.steps.filter((st) => st.write !== undefined)) {
      console.log(`${framework.title}, ${step.write} (${linesOf(step.text)} non-blank lines):\n`);
      console.log(`\`\`\`${step.write.endsWith('.js') ? 'js' : 'ts'}`);
      console.log(step.text.trimEnd());
      console.log('```\n');
    }
  }
  console.log(
    `Load average at the end: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}; ${s((Date.now() - started) / 1000)} s in all.`,
  );
  return anyFailed ? 1 : 0;
}

let exitCode = 1;
try {
  exitCode = await main();
} finally {
  cleanup();
}
process.exit(exitCode);
