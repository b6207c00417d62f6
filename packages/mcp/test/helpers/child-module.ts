// A Node process that runs an ES module's text from the repository's root, for tests of what a process loads.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..', '..', '..');

/**
 * Records, in the child, every module URL the ES module loader resolves (require() of an ES module included), in
 * `globalThis.resolved`. `globalThis.resolvedNow()` gives them at once: the hooks post each URL before the module
 * resolves, so those of an import that has returned are waiting on the port.
 */
export const RECORD_RESOLVED = `
import { register } from 'node:module';
import { MessageChannel, receiveMessageOnPort } from 'node:worker_threads';
const { port1, port2 } = new MessageChannel();
globalThis.resolved = [];
port1.on('message', (url) => globalThis.resolved.push(url));
port1.unref();
globalThis.resolvedNow = () => {
  for (let message; (message = receiveMessageOnPort(port1)) !== undefined; ) globalThis.resolved.push(message.message);
  return globalThis.resolved;
};
const hooks = 'let port; export function initialize(data) { port = data.port; }' +
  ' export async function resolve(specifier, context, next) { const r = await next(specifier, context); port.postMessage(r.url); return r; }';
register('data:text/javascript,' + encodeURIComponent(hooks), { data: { port: port2 }, transferList: [port2] });
`;

export function runModule(code: string): { status: number | null; stdout: string; stderr: string } {
  const ran = spawnSync(process.execPath, ['--input-type=module', '-e', code], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
  return { status: ran.status, stdout: ran.stdout, stderr: ran.stderr };
}

/** The last line of a child's stdout, as JSON; fails with its stderr when it did not finish. */
export function lastJson(ran: { status: number | null; stdout: string; stderr: string }): unknown {
  expect([ran.status, ran.stderr]).toEqual([0, '']);
  return JSON.parse(ran.stdout.trim().split('\n').at(-1)!);
}
