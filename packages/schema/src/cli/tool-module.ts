import { AnytoolError, ErrorCode, toolsetFromModule, type Toolset } from '@anytool/core';
import { loadToolModule } from '@anytool/core/internal';

/**
 * The toolset of a module named on the command line, as `anytool serve` finds
 * it (ES and CommonJS modules alike; only the `--export`s named, if any).
 * Every problem is a coded error with a one-line message.
 */
export async function loadToolset(path: string, only: readonly string[] = []): Promise<Toolset> {
  const toolset = toolsetFromModule(await loadToolModule(path), { only, label: path });
  if (toolset.size === 0) throw new AnytoolError(ErrorCode.InvalidToolModule, `${path} exports a Toolset that holds no tools; add tools to it`);
  return toolset;
}

/**
 * Sends what a loaded module writes to stdout (console.log, process.stdout.write)
 * to stderr until the returned function is called, so the command's own output
 * on stdout (a table, JSON, a result) stays clean.
 */
export function redirectStdout(): () => void {
  const stdout = process.stdout;
  const hadOwn = Object.prototype.hasOwnProperty.call(stdout, 'write');
  const write = stdout.write;
  stdout.write = function redirected(...args: unknown[]): boolean {
    return (process.stderr.write as (...a: unknown[]) => boolean).apply(process.stderr, args);
  } as typeof stdout.write;
  return () => {
    if (hadOwn) stdout.write = write;
    else delete (stdout as { write?: unknown }).write;
  };
}
