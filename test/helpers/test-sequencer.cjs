'use strict';
// jest's testSequencer: the slowest test files first, so that no long file starts near the end of a run and keeps one
// worker busy while the others are idle.
//
// jest's own sequencer orders by the durations in its cache (its last run on this machine); with no cache (a fresh
// checkout, CI) it orders by file size, which put the consumer and conformance suites in the second half of the run.
// This one falls back on the durations of a recorded run, test/durations.json, and on jest's cache where it has a file.
// Refresh the table from a run's results (as CI writes them):
//
//   npx jest --ci --json --outputFile=results.json && node test/helpers/test-sequencer.cjs results.json
const { existsSync, readFileSync, writeFileSync } = require('node:fs');
const { join, relative } = require('node:path');
const Sequencer = require('@jest/test-sequencer').default;

const root = join(__dirname, '..', '..');
const TABLE = join(__dirname, '..', 'durations.json');
/** A file the table does not know yet: after the slow files, before the quick ones. */
const UNKNOWN_MS = 5_000;

/** Test file (relative to the repository, `/` separated) -> milliseconds, from the table. */
function readTable() {
  try {
    return JSON.parse(readFileSync(TABLE, 'utf8')).milliseconds;
  } catch {
    return {};
  }
}

const key = (path) => relative(root, path).split('\\').join('/');

class SlowestFirst extends Sequencer {
  sort(tests) {
    const table = readTable();
    const duration = (test) => this.time(test) ?? table[key(test.path)] ?? UNKNOWN_MS;
    // Files that failed in the last run still come first, as with jest's sequencer.
    return [...tests].sort((a, b) => Number(this.hasFailed(b)) - Number(this.hasFailed(a)) || duration(b) - duration(a));
  }
}

/** A test file's path in this repository, from its path in a run of any checkout of it. */
function inRepository(path) {
  const parts = path.split(/[\\/]/);
  for (let i = 0; i < parts.length; i++) {
    const candidate = parts.slice(i).join('/');
    if (existsSync(join(root, candidate))) return candidate;
  }
  return undefined;
}

/** Writes test/durations.json from a `jest --json` results file: each file's longest run (a file may run in two projects). */
function record(resultsFile) {
  const results = JSON.parse(readFileSync(resultsFile, 'utf8'));
  const milliseconds = {};
  for (const file of results.testResults) {
    const name = inRepository(file.name);
    if (name === undefined) continue;
    const ms = Math.round(file.endTime - file.startTime);
    milliseconds[name] = Math.max(milliseconds[name] ?? 0, ms);
  }
  const sorted = Object.fromEntries(Object.entries(milliseconds).sort(([a], [b]) => (a < b ? -1 : 1)));
  writeFileSync(TABLE, `${JSON.stringify({ milliseconds: sorted }, null, 2)}\n`);
  console.log(`${TABLE}: ${Object.keys(sorted).length} test files`);
}

if (require.main === module) {
  if (process.argv.length !== 3) {
    console.error('usage: node test/helpers/test-sequencer.cjs <jest --json results file>');
    process.exit(2);
  }
  record(process.argv[2]);
}

module.exports = SlowestFirst;
