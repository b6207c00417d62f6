import { childProcess, fs } from '../shared/builtins.cjs';

/**
 * Killing a stdio server's whole process tree. A server started through a
 * wrapper (`npx`, `uvx`, `sh -c`, `docker run`) is a grandchild of this
 * process: killing the wrapper's pid alone leaves the real server running.
 */

/** A process found under a root, with its start time to tell it from a later process that reuses the pid. */
export interface TreeProcess {
  pid: number;
  /** Linux: start time in clock ticks since boot (field 22 of /proc/<pid>/stat); undefined elsewhere. */
  started: string | undefined;
}

function linuxStat(pid: number): { ppid: number; started: string } | undefined {
  try {
    const stat = fs().readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may hold spaces: read the fields after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { ppid: Number(fields[1]), started: fields[19] ?? '' };
  } catch {
    return undefined;
  }
}

function linuxChildren(pid: number): number[] {
  const out: number[] = [];
  try {
    for (const task of fs().readdirSync(`/proc/${pid}/task`)) {
      try {
        const text = fs().readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim();
        if (text !== '') for (const child of text.split(/\s+/)) out.push(Number(child));
      } catch {
        // The task ended, or the kernel has no children file: the ppid scan below covers it.
      }
    }
  } catch {
    // The process is gone.
  }
  return out;
}

/** Every process's parent, from /proc (Linux) or `ps` (other Unix); empty when neither answers. */
function parentMap(): Map<number, number> {
  const parents = new Map<number, number>();
  if (process.platform === 'linux') {
    let entries: string[] = [];
    try {
      entries = fs().readdirSync('/proc');
    } catch {
      return parents;
    }
    for (const entry of entries) {
      if (!/^\d+$/.test(entry)) continue;
      const stat = linuxStat(Number(entry));
      if (stat !== undefined) parents.set(Number(entry), stat.ppid);
    }
    return parents;
  }
  try {
    const text = childProcess().execFileSync('ps', ['-A', '-o', 'pid=', '-o', 'ppid='], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: 2_000,
    });
    for (const line of text.split('\n')) {
      const [pid, ppid] = line.trim().split(/\s+/).map(Number);
      if (pid !== undefined && ppid !== undefined && Number.isInteger(pid) && Number.isInteger(ppid)) parents.set(pid, ppid);
    }
  } catch {
    // No ps: only the root is known.
  }
  return parents;
}

/** The descendants of `root` (not the root itself), parents before children. */
export function descendants(root: number): TreeProcess[] {
  if (process.platform === 'win32') return [];
  const found: number[] = [];
  const seen = new Set<number>([root]);
  const queue = [root];
  let parents: Map<number, number> | undefined;
  while (queue.length > 0) {
    const pid = queue.shift()!;
    let children = process.platform === 'linux' ? linuxChildren(pid) : [];
    if (children.length === 0) {
      // /proc/<pid>/task/*/children needs CONFIG_PROC_CHILDREN; scan the parents once when it gives nothing.
      parents ??= parentMap();
      children = [...parents].filter(([, ppid]) => ppid === pid).map(([child]) => child);
    }
    for (const child of children) {
      if (seen.has(child)) continue;
      seen.add(child);
      found.push(child);
      queue.push(child);
    }
  }
  return found.map((pid) => ({ pid, started: process.platform === 'linux' ? linuxStat(pid)?.started : undefined }));
}

/** True while the process runs and is the one that was found (not a later one with the same pid). */
export function stillRunning(proc: TreeProcess): boolean {
  if (proc.started !== undefined) {
    const stat = linuxStat(proc.pid);
    return stat !== undefined && stat.started === proc.started;
  }
  try {
    process.kill(proc.pid, 0);
    return true;
  } catch {
    return false;
  }
}

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // Already gone.
  }
}

/**
 * Kills `root` and everything under it at once. The root is stopped first so it
 * cannot start more children while the tree is read; then the deepest
 * processes are killed first and the root last.
 */
export function killTree(root: number): void {
  if (process.platform === 'win32') {
    try {
      childProcess().execFileSync('taskkill', ['/pid', String(root), '/T', '/F'], { stdio: 'ignore', timeout: 5_000 });
    } catch {
      signal(root, 'SIGKILL');
    }
    return;
  }
  signal(root, 'SIGSTOP');
  killProcesses(descendants(root));
  signal(root, 'SIGKILL');
}

/** SIGKILLs the processes still running (children last in the list are killed first). */
export function killProcesses(procs: readonly TreeProcess[]): void {
  for (const proc of [...procs].reverse()) if (stillRunning(proc)) signal(proc.pid, 'SIGKILL');
}

/*
 * Process groups. A stdio server started as the leader of its own group (see
 * `startInOwnGroup`) shares the group with everything it starts, including a
 * process it double-forked, which no longer descends from it and which the tree
 * walk above cannot find. A process that left the group (setsid, as a daemon
 * does) is out of reach of both.
 */

/** Whether a process of the group `pgid` is still there. */
function groupRunning(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** SIGKILLs every process of the group `pgid` (no-op on Windows, which has no such groups). */
export function killGroup(pgid: number): void {
  if (process.platform !== 'win32') signal(-pgid, 'SIGKILL');
}

/** Ends what is left of the group `pgid`: SIGTERM, up to `graceMs` for it to empty, then SIGKILL. */
export async function endGroup(pgid: number, graceMs: number): Promise<void> {
  if (process.platform === 'win32' || !groupRunning(pgid)) return;
  signal(-pgid, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline && groupRunning(pgid)) await new Promise((resolve) => setTimeout(resolve, 25));
  if (groupRunning(pgid)) killGroup(pgid);
}
