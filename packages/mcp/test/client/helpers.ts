import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The test fixture server (modes: ok, exit-on-start, slow-start, hang-on-start, garbage, hang-list). */
export const FIXTURE = join(__dirname, '..', 'fixtures', 'fixture-server.mjs');

const serverEntry = (name: string): string => require.resolve(`@modelcontextprotocol/${name}/dist/index.js`);
export const EVERYTHING = serverEntry('server-everything');
export const FILESYSTEM = serverEntry('server-filesystem');
export const MEMORY = serverEntry('server-memory');

export function fixture(mode = 'ok', env?: Record<string, string>): { command: string; args: string[]; env?: Record<string, string> } {
  return env === undefined ? { command: process.execPath, args: [FIXTURE, mode] } : { command: process.execPath, args: [FIXTURE, mode], env };
}

export function tempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), `anytool-mcp-${prefix}-`));
}

/** True while a process with this pid exists. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Waits until the async `check` holds (polling), or fails after `ms`. */
export async function untilAsync(check: () => Promise<boolean>, ms = 10_000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Waits until `check` holds (polling), or fails after `ms`. */
export async function until(check: () => boolean, ms = 10_000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
