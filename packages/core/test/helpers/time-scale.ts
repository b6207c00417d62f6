/**
 * How much longer the tests wait on this machine: `ANYTOOL_TEST_TIME_SCALE`, a number of 1 or
 * more (default 1). Set it to 2 or 3 in CI or on a loaded machine, where starting a child
 * process, importing the SDK or answering a request can take several times as long:
 *
 *   ANYTOOL_TEST_TIME_SCALE=3 npx jest --selectProjects mcp
 */
export const TIME_SCALE = readTimeScale(process.env['ANYTOOL_TEST_TIME_SCALE']);

/**
 * `ms` times `ANYTOOL_TEST_TIME_SCALE`, for a timeout that only guards against a hang: a jest
 * test timeout, waiting for a child process to listen or exit, a start timeout that must leave
 * room for a slow start. A duration that is what the test checks (a tool timeout that must
 * fire, a backoff, a lease) is not scaled: scaling it would slow the test and prove nothing more.
 */
export function scaled(ms: number): number {
  return Math.ceil(ms * TIME_SCALE);
}

function readTimeScale(text: string | undefined): number {
  if (text === undefined || text.trim() === '') return 1;
  const scale = Number(text);
  if (!Number.isFinite(scale) || scale < 1)
    throw new Error(`ANYTOOL_TEST_TIME_SCALE must be a number of 1 or more (how many times longer the tests wait), got ${JSON.stringify(text)}`);
  return scale;
}
