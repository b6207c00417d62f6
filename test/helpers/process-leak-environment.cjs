'use strict';
// jest's node environment, with one addition: a test file fails when it leaves a process behind.
//
// Every test stops what it starts, even when it fails or times out. After a file's tests and hooks,
// this environment looks for processes the file started that are still alive: the worker's own
// descendants, and processes (orphans among them, re-parented when their parent exited) whose
// environment carries the file's marker, set here before the file runs and inherited by whatever it
// spawns. They get a grace period to exit; those still alive after it are named in the file's
// failure and killed, so that the next file starts clean. Linux only (it reads /proc); elsewhere
// it checks nothing.
const { readFileSync, readdirSync } = require('node:fs');
const { TestEnvironment } = require('jest-environment-node');

const MARKER = 'ANYTOOL_TEST_FILE';
const SCALE = Number(process.env.ANYTOOL_TEST_TIME_SCALE) || 1;
/** How long a file's processes may take to exit after its last hook (a process being stopped may still be exiting). */
const GRACE_MS = 5_000 * SCALE;
const POLL_MS = 100;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** pid -> { ppid, state, marker } of every live process this user can read; undefined where /proc is missing. */
function processTable() {
  let entries;
  try {
    entries = readdirSync('/proc');
  } catch {
    return undefined;
  }
  const table = new Map();
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      // The command name sits in parentheses and may itself hold spaces or parentheses: read after the last ')'.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const state = fields[0];
      if (state === 'Z' || state === 'X') continue;
      let marker;
      try {
        const environ = readFileSync(`/proc/${pid}/environ`, 'utf8');
        const start = environ.indexOf(`${MARKER}=`);
        if (start !== -1) {
          const end = environ.indexOf('\0', start);
          marker = environ.slice(start + MARKER.length + 1, end === -1 ? undefined : end);
        }
      } catch {
        // Another user's process: its environment cannot be read, and it cannot be ours.
      }
      table.set(pid, { ppid: Number(fields[1]), marker });
    } catch {
      // The process ended while the table was read.
    }
  }
  return table;
}

/** The live processes this file left: descendants of this process, and any process that carries the file's marker. */
function leftBy(testPath) {
  const table = processTable();
  if (table === undefined) return [];
  const left = [];
  for (const [pid, info] of table) {
    if (pid === process.pid) continue;
    let ancestor = info.ppid;
    let descendant = false;
    for (let hops = 0; ancestor > 1 && hops < 64; hops += 1) {
      if (ancestor === process.pid) {
        descendant = true;
        break;
      }
      ancestor = table.get(ancestor)?.ppid ?? 0;
    }
    if (descendant || info.marker === testPath) left.push(pid);
  }
  return left;
}

function commandOf(pid) {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ').slice(0, 300);
  } catch {
    return '(ended)';
  }
}

class ProcessLeakEnvironment extends TestEnvironment {
  constructor(config, context) {
    // Set before the sandbox copies the environment, so that children spawned with `{ ...process.env }` carry it too.
    process.env[MARKER] = context.testPath;
    super(config, context);
    this.testPath = context.testPath;
  }

  async handleTestEvent(event, state) {
    if (event.name !== 'run_finish') return;
    let left = leftBy(this.testPath);
    for (let waited = 0; left.length > 0 && waited < GRACE_MS; waited += POLL_MS) {
      await sleep(POLL_MS);
      left = leftBy(this.testPath);
    }
    if (left.length === 0) return;
    const lines = left.map((pid) => `  pid ${pid}: ${commandOf(pid)}`);
    for (const pid of left) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
    state.unhandledErrors.push(
      new Error(
        `this test file left ${left.length} process(es) running ${GRACE_MS / 1000} s after its last test (now killed):\n${lines.join('\n')}\n` +
          'Stop every process a test starts in an afterEach/afterAll or a finally block, also when the test fails or times out.',
      ),
    );
  }

  async teardown() {
    delete process.env[MARKER];
    await super.teardown();
  }
}

module.exports = ProcessLeakEnvironment;
