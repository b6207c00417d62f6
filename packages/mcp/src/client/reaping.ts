import { descendants, endGroup, killGroup, killProcesses, killTree, stillRunning, type TreeProcess } from './process-tree.js';

/*
 * Ending what a stdio server left running: the processes it started (a wrapper's
 * real server, a double-forked helper), at close, after a failed start, and
 * when the server died by itself.
 */

/** How long a stdio server's leftover descendants get after SIGTERM at close before SIGKILL. */
export const TREE_GRACE_MS = 1_000;
/** How long a stdio server's process tree may take to end by itself after its stdin ends (the SDK waits as long before SIGTERM). */
const STDIO_GRACE_MS = 2_000;

/**
 * Closes a stdio session (`close`, the SDK's: stdin end, SIGTERM, SIGKILL) and
 * then whatever the server started that outlived it: its process group (when
 * `grouped`), and what descended from it.
 */
export async function closeStdioSession(pid: number | undefined, grouped: boolean, close: () => Promise<void>): Promise<void> {
  const tree = pid === undefined ? [] : descendants(pid);
  const closed = close().catch(() => undefined);
  if (tree.length > 0) {
    // The SDK gives the server 2 s after the end of its stdin before SIGTERM; give the processes it started the same,
    // then end them: a wrapper (npx, sh -c) waiting on a server that ignores the end of stdin then exits by itself.
    let timer: ReturnType<typeof setTimeout> | undefined;
    const graceOver = await Promise.race([
      closed.then(() => false),
      new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), STDIO_GRACE_MS))),
    ]);
    clearTimeout(timer);
    if (graceOver) await endLeftovers(tree);
  }
  await closed;
  await Promise.all([endLeftovers(tree), grouped && pid !== undefined ? endGroup(pid, TREE_GRACE_MS) : undefined]);
}

/**
 * Kills a server whose start failed, at once, with every process it started. A
 * child that already exited is not killed: its pid may belong to another process
 * by now (its group ended when it exited).
 */
export function killStarting(pid: number | undefined, running: (() => boolean) | undefined, grouped: boolean): void {
  if (pid === undefined || running?.() === false) return;
  killTree(pid);
  if (grouped) killGroup(pid);
}

/** The process group of a server that ended by itself: what it left running ends too. */
export function endExitedGroup(pid: number): void {
  void endGroup(pid, TREE_GRACE_MS);
}

/** Processes a stdio server started that outlived it: SIGTERM, a short grace, then SIGKILL. */
async function endLeftovers(tree: readonly TreeProcess[]): Promise<void> {
  const left = tree.filter(stillRunning);
  if (left.length === 0) return;
  for (const proc of left) {
    try {
      process.kill(proc.pid, 'SIGTERM');
    } catch {
      // Already gone.
    }
  }
  const deadline = Date.now() + TREE_GRACE_MS;
  while (Date.now() < deadline && left.some(stillRunning)) await new Promise((resolve) => setTimeout(resolve, 25));
  killProcesses(left);
}
