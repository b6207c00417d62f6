import { McpToolset } from '@anytool/mcp';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { scaled } from '../../../core/test/helpers/time-scale';

/** The test fixture server (modes: ok, exit-on-start, slow-start, hang-on-start, garbage, hang-list). */
export const FIXTURE = join(__dirname, '..', 'fixtures', 'fixture-server.mjs');

const serverEntry = (name: string): string => require.resolve(`@modelcontextprotocol/${name}/dist/index.js`);
export const EVERYTHING = serverEntry('server-everything');
export const FILESYSTEM = serverEntry('server-filesystem');
export const MEMORY = serverEntry('server-memory');

export function fixture(mode = 'ok', env?: Record<string, string>): { command: string; args: string[]; env?: Record<string, string> } {
  return env === undefined ? { command: process.execPath, args: [FIXTURE, mode] } : { command: process.execPath, args: [FIXTURE, mode], env };
}

const madeDirs: string[] = [];

/** A new folder under the system's temp folder, removed with what it holds when the test file ends. */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), `anytool-mcp-${prefix}-`));
  madeDirs.push(dir);
  return dir;
}

afterAll(() => {
  for (const dir of madeDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** True while a process with this pid exists. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Waits until the async `check` holds (polling), or fails after `ms` (scaled for a slow machine). */
export async function untilAsync(check: () => Promise<boolean>, ms = 10_000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + scaled(ms);
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Waits until `check` holds (polling), or fails after `ms` (scaled for a slow machine). */
export async function until(check: () => boolean, ms = 10_000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + scaled(ms);
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * `McpToolset.connect` for a describe block: every toolset it opens is closed
 * after each test, and the test fails unless each server process is gone.
 */
export function connectForEachTest(): (...args: Parameters<typeof McpToolset.connect>) => Promise<McpToolset> {
  const open: McpToolset[] = [];
  afterEach(async () => {
    const closing = open.splice(0);
    const pids = closing.flatMap((m) => m.connections.map((c) => c.pid).filter((pid): pid is number => pid !== undefined));
    await Promise.all(closing.map((m) => m.close()));
    // Nothing is left running.
    for (const pid of pids) await until(() => !alive(pid), 5_000, `process ${pid} to exit`);
  });
  return async (...args) => {
    const mcp = await McpToolset.connect(...args);
    open.push(mcp);
    return mcp;
  };
}

/**
 * For a test that runs beside others (`it.concurrent`, where an afterEach would close the toolsets of tests still
 * running): `test` connects as `McpToolset.connect` does; every toolset it opened is closed at its end, and the
 * test fails unless each server process is gone.
 */
export async function withConnections(
  test: (connect: (...args: Parameters<typeof McpToolset.connect>) => Promise<McpToolset>) => Promise<void>,
): Promise<void> {
  const open: McpToolset[] = [];
  try {
    await test(async (...args) => {
      const mcp = await McpToolset.connect(...args);
      open.push(mcp);
      return mcp;
    });
  } finally {
    const pids = open.flatMap((m) => m.connections.map((c) => c.pid).filter((pid): pid is number => pid !== undefined));
    await Promise.all(open.map((m) => m.close()));
    for (const pid of pids) await until(() => !alive(pid), 5_000, `process ${pid} to exit`);
  }
}
