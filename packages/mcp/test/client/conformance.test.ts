import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './helpers';
import { verdict, type Check } from '../fixtures/conformance-checks';
import { scaled } from '../../../core/test/helpers/time-scale';

// The MCP conformance suite's client scenarios against a client built with @anytool/mcp (fixtures/conformance-client.mjs,
// which does what each scenario asks of a client, as an application would), once per protocol era: the suite's
// --spec-version 2025-11-25 runs the 2025 scenarios (initialize, sessions), 2026-07-28 those of that revision.
// The suite needs Node 22, which npx fetches (the first run downloads it).
const root = join(__dirname, '..', '..', '..', '..');
const client = join(__dirname, '..', 'fixtures', 'conformance-client.mjs');
const SUITE = '@modelcontextprotocol/conformance@0.2.0-alpha.12';

/**
 * Per era, the scenarios run and what is expected of each: `true` passes, a string is an expected failure and
 * why. The test fails when a scenario does otherwise, so one that starts to pass must be moved to `true`.
 * The 2025 lane leaves the era to the client's probe; the 2026-07-28 lane pins the modern era (`protocol: 'modern'`),
 * as some of its mocks answer no server/discover.
 */
const EXPECTED: Record<string, Record<string, true | string>> = {
  '2025-11-25': {
    initialize: true,
    tools_call: true,
    'sse-retry': true,
    'json-schema-2020-12-preservation': true,
    'elicitation-sep1034-client-defaults': true,
  },
  '2026-07-28': {
    tools_call: true,
    'request-metadata': true,
    'json-schema-2020-12-preservation': true,
    // It checks that $ref is not dereferenced: no tool call is needed, and nothing is dereferenced.
    'json-schema-ref-no-deref': true,
    'http-standard-headers': true,
    'http-custom-headers': true,
    'http-invalid-tool-headers': true,
    'sep-2322-client-request-state': true,
  },
};

/** The auth scenarios of each revision (the client as an OAuth client: conformance-client.mjs gives it the settings each needs). */
const AUTH_BOTH = [
  'metadata-default',
  'metadata-var1',
  'metadata-var2',
  'metadata-var3',
  'basic-cimd',
  'scope-from-www-authenticate',
  'scope-from-scopes-supported',
  'scope-omitted-when-undefined',
  'scope-step-up',
  'scope-retry-limit',
  'token-endpoint-auth-basic',
  'token-endpoint-auth-post',
  'token-endpoint-auth-none',
  'pre-registration',
];
const AUTH_2026 = [
  'resource-mismatch',
  'offline-access-scope',
  'offline-access-not-supported',
  'authorization-server-migration',
  'iss-supported',
  'iss-not-advertised',
  'iss-supported-missing',
  'iss-wrong-issuer',
  'iss-unexpected',
  'iss-normalized',
  'metadata-issuer-mismatch',
];
const passing = (names: string[]): Record<string, true> => Object.fromEntries(names.map((name) => [`auth/${name}`, true as const]));

/**
 * The auth scenarios, per revision as `EXPECTED`: the two revisions, 2025-03-26 (its two scenarios exist at that
 * revision only) and the extension scenarios (run without --spec-version, which never selects them).
 */
const EXPECTED_AUTH: Record<string, Record<string, true | string>> = {
  '2025-11-25': passing(AUTH_BOTH),
  '2026-07-28': passing([...AUTH_BOTH, ...AUTH_2026]),
  '2025-03-26': passing(['2025-03-26-oauth-metadata-backcompat', '2025-03-26-oauth-endpoint-fallback']),
  extension: {
    ...passing(['client-credentials-basic', 'client-credentials-jwt']),
    'auth/enterprise-managed-authorization':
      'extension left out: cross-app access (SEP-990) needs an identity provider token exchange the auth settings do not offer',
    'auth/dpop': 'extension left out: DPoP-bound tokens (RFC 9449) are not implemented (nor by the SDK client anytool builds on)',
    'auth/dpop-nonce': 'extension left out: DPoP-bound tokens (RFC 9449) are not implemented (nor by the SDK client anytool builds on)',
    'auth/wif-jwt-bearer': 'extension left out: workload identity federation (the jwt-bearer grant) is not among the auth settings',
  },
};

/** Listed by the suite, run by no lane here, and why. */
const NOT_RUN: Array<[RegExp, string]> = [[/^sep-2640-/, 'out of scope: an extension (skills) anytool does not implement']];

/** The checks of every scenario saved under `out` (an `auth/` scenario's under `out/auth`), with what the client wrote to stderr. */
function readResults(out: string, prefix = ''): Map<string, { checks: Check[]; stderr: string }> {
  // A failed scenario shows what the client printed (its calls and their results) and its stderr.
  const results = new Map<string, { checks: Check[]; stderr: string }>();
  if (!existsSync(out)) return results;
  for (const entry of readdirSync(out)) {
    if (entry === 'auth' && prefix === '') {
      for (const [name, result] of readResults(join(out, entry), 'auth/')) results.set(name, result);
      continue;
    }
    const scenario = /^(.+)-\d{4}-\d\d-\d\dT/.exec(entry)?.[1];
    if (scenario === undefined || !existsSync(join(out, entry, 'checks.json'))) continue;
    const read = (file: string): string => (existsSync(join(out, entry, file)) ? readFileSync(join(out, entry, file), 'utf8') : '');
    const stderr = [read('stdout.txt').slice(-1500), read('stderr.txt')].filter((text) => text !== '').join('\n');
    results.set(`${prefix}${scenario}`, { checks: JSON.parse(readFileSync(join(out, entry, 'checks.json'), 'utf8')) as Check[], stderr });
  }
  return results;
}

/**
 * Runs npx to its end and resolves with its output. At `timeout` its whole process group is killed: the lanes' shells,
 * the suite's processes and the clients they started, not only npx (which would leave them running).
 */
function run(args: string[], cwd: string, timeout: number, env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve) => {
    const child = spawn('npx', args, { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const timer = setTimeout(() => {
      output += `\n(killed after ${timeout} ms)`;
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // The group is gone already.
      }
    }, timeout);
    child.once('error', (error) => {
      clearTimeout(timer);
      resolve(`${output}\n${error.message}`);
    });
    child.once('close', () => {
      clearTimeout(timer);
      resolve(output);
    });
  });
}

/** How many scenarios run at once (each a start of the suite and of the client): more, and on a busy machine the suite's mock servers drop requests. */
const LANES = 5;

/** Every scenario of a table with its revision, dealt in turn to `LANES` lanes, which so differ by one scenario at most. */
function lanesOf(expected: Record<string, Record<string, true | string>>): Array<Array<{ revision: string; scenario: string }>> {
  const runs = Object.entries(expected).flatMap(([revision, scenarios]) => Object.keys(scenarios).map((scenario) => ({ revision, scenario })));
  const lanes = Array.from({ length: Math.min(LANES, runs.length) }, () => [] as Array<{ revision: string; scenario: string }>);
  runs.forEach((entry, i) => lanes[i % lanes.length]!.push(entry));
  return lanes;
}

describe('MCP conformance suite, client scenarios', () => {
  beforeAll(() => {
    // `npm test` builds first; a bare `jest` run builds the packages the client loads here.
    if (!existsSync(join(root, 'packages', 'mcp', 'dist', 'esm', 'index.js'))) {
      execFileSync(process.execPath, [join(root, 'scripts', 'build.mjs'), 'core', 'mcp'], { cwd: root, stdio: 'ignore' });
    }
  });

  /**
   * Runs the scenarios of `expected` (one npx, one Node 22) in `LANES` lanes: each lane's scenarios one after the
   * other, the lanes side by side (the suite's own --suite runs all at once, and on a busy machine its mock servers
   * then drop requests). Checks them against `expected` and returns the suite's list of client scenarios.
   */
  async function runLanes(expected: Record<string, Record<string, true | string>>, timeout: number): Promise<string[]> {
    // Its results/ folders go to a temp dir, not the checkout.
    const cwd = tempDir('conformance');
    try {
      const revisions = Object.keys(expected);
      // The suite's limit on one client run: a start of Node and of the client, which a busy machine slows.
      const command = `conformance client --command "${process.execPath} ${client}" --timeout ${scaled(20_000)}`;
      const version = (revision: string): string => (revision === 'extension' ? '' : ` --spec-version ${revision}`);
      const out = (revision: string): string => `out-${revision}`;
      const scripts = lanesOf(expected).map(
        (lane) =>
          `( ${lane
            .map(({ revision, scenario }) => `${command} --scenario ${scenario}${version(revision)} -o ${out(revision)} > /dev/null 2>&1`)
            .join('; ')} ) &`,
      );
      const script = `conformance list --client > list.txt; ${scripts.join(' ')} wait`;
      // Node 22 keeps the suite's compiled code for its next start (the Node running the tests ignores the variable).
      const env = { ...process.env, NO_COLOR: '1', NODE_COMPILE_CACHE: join(cwd, 'compile-cache') };
      const output = await run(['-y', '-p', 'node@22', '-p', SUITE, '-c', script], cwd, timeout, env);

      // A scenario expected to pass that failed beside the others runs once more alone, and that run is checked
      // (json-schema-2020-12-preservation of 2026-07-28 has failed now and then among the lanes, never alone).
      const again = (revision: string): string => `again-${revision}`;
      const failed = revisions.flatMap((revision) => {
        const results = readResults(join(cwd, out(revision)));
        return Object.keys(expected[revision]!)
          .filter((scenario) => expected[revision]![scenario] === true && verdict(results.get(scenario)?.checks) !== true)
          .map((scenario) => ({ revision, scenario }));
      });
      if (failed.length > 0) {
        const alone = failed.map(({ revision, scenario }) => `${command} --scenario ${scenario}${version(revision)} -o ${again(revision)} > /dev/null 2>&1`);
        await run(['-y', '-p', 'node@22', '-p', SUITE, '-c', alone.join('; ')], cwd, timeout, env);
      }

      const report: string[] = [];
      const actual: Record<string, Record<string, true | string>> = {};
      for (const revision of revisions) {
        const results = readResults(join(cwd, out(revision)));
        const alone = readResults(join(cwd, again(revision)));
        actual[revision] = {};
        for (const scenario of Object.keys(expected[revision]!)) {
          if (alone.has(scenario)) report.push(`${revision} failed in its lane, run again alone: ${scenario}`);
          const result = alone.get(scenario) ?? results.get(scenario);
          const got = verdict(result?.checks);
          const want = expected[revision]![scenario]!;
          // An expected failure is met by a failure of the scenario, not by its not running.
          const met = got !== true && got !== 'not run' && typeof want === 'string';
          actual[revision]![scenario] = got === true ? true : met ? want : `${got}${result?.stderr ? `\nclient output: ${result.stderr.slice(-2500)}` : ''}`;
          report.push(`${revision} ${got === true ? 'pass' : want === true ? 'FAIL' : 'expected failure'} ${scenario}${got === true ? '' : `: ${got}`}`);
        }
      }
      process.stdout.write(`conformance (${SUITE}), client scenarios:\n${report.join('\n')}\n`);
      expect(actual).toEqual(expected);

      const listed = readFileSync(join(cwd, 'list.txt'), 'utf8');
      const clientPart = listed.slice(listed.indexOf('Client scenarios'), listed.indexOf('Authorization server scenarios'));
      const names = [...clientPart.matchAll(/^\s+- (\S+)/gm)].map((m) => m[1]!);
      expect({ listed: names.length > 0, output: names.length > 0 ? '' : output.slice(-2000) }).toEqual({ listed: true, output: '' });
      return names;
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  }

  it(
    'passes the 2025-era scenarios in scope, and fails the 2026-07-28 ones only as listed',
    async () => {
      const names = await runLanes(EXPECTED, 280_000);
      // Every client scenario the suite lists is run here (this test or the auth one) or left out for a reason.
      const run = (name: string): boolean => [EXPECTED, EXPECTED_AUTH].some((table) => Object.values(table).some((lane) => name in lane));
      expect(names.filter((name) => !run(name) && !NOT_RUN.some(([pattern]) => pattern.test(name)))).toEqual([]);
    },
    scaled(300_000),
  );

  // 47 scenario runs, each a Node 22 start of the suite and a start of the client, in LANES lanes.
  it(
    'passes the auth scenarios as an OAuth client, every revision, and the extensions as listed',
    async () => {
      await runLanes(EXPECTED_AUTH, 560_000);
    },
    scaled(600_000),
  );
});
