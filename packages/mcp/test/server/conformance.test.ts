import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EXAMPLE_MAIN, requireBuilt, startHttpChild, stopChild } from './helpers';
import { verdict, type Check } from '../fixtures/conformance-checks';

// The MCP conformance suite in server mode (it needs Node 22, which npx fetches), against the example server
// (examples/mcp-server, the suite's test tools as @Tool methods) served over streamable HTTP, once per protocol
// era, on the same endpoint: the suite's --spec-version 2025-11-25 runs the 2025 scenarios (initialize, sessions),
// 2026-07-28 the scenarios of that revision (server/discover, a _meta envelope on every request, no sessions,
// input_required rounds). The Tasks extension's scenarios run by name, after the eras.
const CONFORMANCE = '@modelcontextprotocol/conformance@0.2.0-alpha.12';

const OUT_OF_SCOPE = 'out of scope: anytool serves tools only (no resources, prompts or completion)';

/**
 * Per era, every scenario the suite runs and what is expected of it: `true` passes, a string is an expected
 * failure and why. The test fails when a scenario does otherwise, so a scenario that starts to pass must be
 * moved here from the expected failures.
 */
const EXPECTED: Record<string, Record<string, true | string>> = {
  '2025-11-25': {
    'server-initialize': true,
    'server-session-lifecycle': true,
    'logging-set-level': true,
    ping: true,
    'tools-list': true,
    'tools-call-simple-text': true,
    'tools-call-image': true,
    'tools-call-audio': true,
    'tools-call-embedded-resource': true,
    'tools-call-mixed-content': true,
    'tools-call-with-logging': true,
    'tools-call-error': true,
    'tools-call-with-progress': true,
    'tools-call-sampling': true,
    'tools-call-elicitation': true,
    'json-schema-2020-12': true,
    'elicitation-sep1034-defaults': true,
    'elicitation-sep1330-enums': true,
    'server-sse-polling': true,
    'server-sse-multiple-streams': true,
    'dns-rebinding-protection': true,
    'completion-complete': OUT_OF_SCOPE,
    'resources-list': OUT_OF_SCOPE,
    'resources-read-text': OUT_OF_SCOPE,
    'resources-read-binary': OUT_OF_SCOPE,
    'resources-templates-read': OUT_OF_SCOPE,
    'resources-subscribe': OUT_OF_SCOPE,
    'resources-unsubscribe': OUT_OF_SCOPE,
    'prompts-list': OUT_OF_SCOPE,
    'prompts-get-simple': OUT_OF_SCOPE,
    'prompts-get-with-args': OUT_OF_SCOPE,
    'prompts-get-embedded-resource': OUT_OF_SCOPE,
    'prompts-get-with-image': OUT_OF_SCOPE,
  },
  '2026-07-28': {
    'server-stateless': true,
    'tools-list': true,
    'tools-call-simple-text': true,
    'tools-call-image': true,
    'tools-call-audio': true,
    'tools-call-embedded-resource': true,
    'tools-call-mixed-content': true,
    'tools-call-error': true,
    'tools-call-with-progress': true,
    'json-schema-2020-12': true,
    'server-sse-multiple-streams': true,
    'dns-rebinding-protection': true,
    // tools/list carries its hints; the scenario also asks prompts/list and resources/list for theirs.
    caching: `${OUT_OF_SCOPE}: it also checks the cache hints of prompts/list and resources/list`,
    'http-header-validation': true,
    'http-custom-header-server-validation': true,
    'input-required-result-basic-elicitation': true,
    'input-required-result-basic-sampling': true,
    'input-required-result-basic-list-roots': true,
    'input-required-result-request-state': true,
    'input-required-result-multiple-input-requests': true,
    'input-required-result-multi-round': true,
    'input-required-result-missing-input-response': true,
    'input-required-result-result-type': true,
    'input-required-result-unsupported-methods': true,
    'input-required-result-tampered-state': true,
    'input-required-result-capability-check': true,
    'input-required-result-ignore-extra-params': true,
    'input-required-result-validate-input': true,
    'input-required-result-non-tool-request': `${OUT_OF_SCOPE}: it asks prompts/get`,
    // An unknown resource is answered as the scenario wants: no resources at all.
    'sep-2164-resource-not-found': true,
    'completion-complete': OUT_OF_SCOPE,
    'resources-list': OUT_OF_SCOPE,
    'resources-read-text': OUT_OF_SCOPE,
    'resources-read-binary': OUT_OF_SCOPE,
    'resources-templates-read': OUT_OF_SCOPE,
    'prompts-list': OUT_OF_SCOPE,
    'prompts-get-simple': OUT_OF_SCOPE,
    'prompts-get-with-args': OUT_OF_SCOPE,
    'prompts-get-embedded-resource': OUT_OF_SCOPE,
    'prompts-get-with-image': OUT_OF_SCOPE,
  },
};

/**
 * The Tasks extension's scenarios (`io.modelcontextprotocol/tasks`, on the 2026-07-28 wire), which the suite
 * runs only when named; the example server has their fixture tools (examples/mcp-server/task-tools.ts).
 */
const TASKS: Record<string, true | string> = {
  'tasks-lifecycle': true,
  'tasks-capability-negotiation': true,
  'tasks-wire-fields': true,
  'tasks-request-state-removal': true,
  'tasks-mrtr-input': true,
  'tasks-request-headers': true,
  'tasks-dispatch-and-envelope': true,
  'tasks-required-task-error': true,
  'tasks-status-notifications': 'the suite skips it (its checks wait for a rewrite onto subscriptions/listen)',
  'tasks-mrtr-composition': true,
};

/** What each run expects: the two eras, and the Tasks extension. */
const RUNS: Record<string, Record<string, true | string>> = { ...EXPECTED, tasks: TASKS };

/** The suite's arguments for a run: an era runs all its scenarios; an extension's scenarios run one by one. */
function runArgs(run: string, url: string, out: string, scenario?: string): string[] {
  if (run in EXPECTED)
    return [`conformance server --url ${url} ${scenario === undefined ? '--suite all' : `--scenario ${scenario}`} --spec-version ${run} -o ${out}`];
  return (scenario === undefined ? Object.keys(RUNS[run]!) : [scenario]).map((name) => `conformance server --url ${url} --scenario ${name} -o ${out}`);
}

/** Listed by the suite but run by no era: protocol extensions anytool does not implement. */
const EXTENSIONS = /^sep-2640-/;

/**
 * Runs a command to its end (280 s at most: then its whole process group is killed, the suite's processes with npx).
 * The suite's Node 22 keeps its compiled code in `cwd` for its next start (the Node running the tests ignores it).
 */
function run(command: string, args: string[], cwd: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    const env = { ...process.env, NO_COLOR: '1', NODE_COMPILE_CACHE: join(cwd, 'compile-cache') };
    const child = spawn(command, args, { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const timer = setTimeout(() => {
      output += '\n(killed after 280 s)';
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // The group is gone already.
      }
    }, 280_000);
    child.once('error', (error) => {
      clearTimeout(timer);
      resolve({ code: 1, output: `${output}\n${error.message}` });
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? 1, output });
    });
  });
}

/** The checks of every scenario the suite saved under `out` (one folder per scenario). */
function readResults(out: string): Map<string, Check[]> {
  const results = new Map<string, Check[]>();
  if (!existsSync(out)) return results;
  for (const entry of readdirSync(out)) {
    const scenario = /^server-(.+)-\d{4}-\d\d-\d\dT/.exec(entry)?.[1];
    if (scenario !== undefined) results.set(scenario, JSON.parse(readFileSync(join(out, entry, 'checks.json'), 'utf8')) as Check[]);
  }
  return results;
}

describe('MCP conformance suite, server mode, against the example server', () => {
  beforeAll(() => requireBuilt(EXAMPLE_MAIN));

  it('passes every in-scope scenario of both eras on one endpoint', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'anytool-conformance-'));
    const server = await startHttpChild([EXAMPLE_MAIN, '--http', '--port', '0']);
    try {
      const eras = Object.keys(RUNS);
      // One npx (and one Node 22) for the scenario list, then both eras and the extension side by side (each era's
      // scenarios at once, as --suite runs them; the extension's one after the other).
      const lanes = eras.map((era) => runArgs(era, server.url, `out-${era}`).map((command) => `${command} >> run-${era}.txt 2>&1`));
      const script = ['conformance list --server > list.txt;', ...lanes.map((lane) => `( ${lane.join('; ')} ) &`), 'wait'].join(' ');
      const npx = process.platform === 'win32' ? 'npx.cmd' : 'npx';
      const { output } = await run(npx, ['-y', '-p', 'node@22', '-p', CONFORMANCE, '-c', script], dir);

      const report: string[] = [];
      const actual: Record<string, Record<string, true | string>> = {};
      for (const era of eras) {
        const results = readResults(join(dir, `out-${era}`));
        // A scenario the suite gave up on after its 30 s timeout (a busy machine) runs once more, alone.
        // A failure, or a second timeout, stands; the report says which scenarios needed the second run.
        const timedOut = [...results].filter(([, checks]) => String(verdict(checks)).startsWith('scenario-timeout')).map(([name]) => name);
        for (const scenario of timedOut) {
          const again = `again-${era}-${scenario}`;
          await run(npx, ['-y', '-p', 'node@22', '-p', CONFORMANCE, '-c', `${runArgs(era, server.url, again, scenario)[0]!} > ${again}.txt 2>&1`], dir);
          const second = readResults(join(dir, again)).get(scenario);
          report.push(
            `${era} ${scenario} timed out; its second run: ${second === undefined ? 'not run' : verdict(second) === true ? 'pass' : verdict(second)}`,
          );
          if (second !== undefined) results.set(scenario, second);
        }
        actual[era] = {};
        for (const scenario of new Set([...Object.keys(RUNS[era]!), ...results.keys()])) {
          const got = verdict(results.get(scenario));
          const want = RUNS[era]![scenario];
          // An expected failure is met by any failure (not by not running); the reasons in EXPECTED are ours, the suite's go in the report.
          actual[era]![scenario] = got === true ? true : got !== 'not run' && typeof want === 'string' ? want : got;
          report.push(
            `${era} ${got === true ? 'pass' : want === undefined || want === true ? 'FAIL' : 'expected failure'} ${scenario}${got === true ? '' : `: ${got}`}`,
          );
        }
      }
      process.stdout.write(`conformance (${CONFORMANCE}) against ${server.url}:\n${report.join('\n')}\n`);
      expect(actual).toEqual(RUNS);

      // Every scenario the suite lists is accounted for: a new one in a later release is decided on here.
      const listed = readFileSync(join(dir, 'list.txt'), 'utf8');
      const serverPart = listed.slice(0, listed.indexOf('Client scenarios'));
      const names = [...serverPart.matchAll(/^\s+- (\S+)/gm)].map((m) => m[1]!);
      expect({ listed: names.length > 0, output: names.length > 0 ? '' : output.slice(-2000) }).toEqual({ listed: true, output: '' });
      expect(names.filter((name) => !EXTENSIONS.test(name) && !eras.some((era) => name in RUNS[era]!))).toEqual([]);
    } finally {
      expect(await stopChild(server.child, server.exited)).toBe(0);
      rmSync(dir, { recursive: true, force: true });
    }
  }, 300_000);
});
