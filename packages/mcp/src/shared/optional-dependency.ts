import { AnytoolError, ErrorCode } from '@anytool/core';
import { describeError } from '@anytool/core/internal';

/**
 * Loads an optional peer dependency of @anytool/mcp the first time it is needed (`load` is the `import()` of it,
 * written where it is used so bundlers see the name). A program that never serves HTTP or uses Redis never installs
 * or loads those packages. When it is missing, the error is one line naming the `npm i` to run.
 *
 * @param owner what needs it, for the message (`serveMcp({ transport: 'http' })`)
 * @param pkg the package to install
 */
export async function importOptional<T>(load: () => Promise<T>, owner: string, pkg: string): Promise<T> {
  try {
    return await load();
  } catch (error) {
    const missing = isModuleNotFound(error);
    throw new AnytoolError(
      ErrorCode.MissingDependency,
      `${owner} needs the ${pkg} package, which ${missing ? 'is not installed' : `does not load (${describeError(error).split('\n')[0]!})`}; install it next to @anytool/mcp: npm i ${pkg}`,
      { cause: error },
    );
  }
}

function isModuleNotFound(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  return code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND';
}
