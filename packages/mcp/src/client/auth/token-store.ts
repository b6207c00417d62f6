import { dirname } from 'node:path';
import { AnytoolError, ErrorCode } from '@anytool/core';
import type { StoredOAuthClientInformation, StoredOAuthTokens } from '@modelcontextprotocol/client';
import { crypto, fsPromises } from '../../shared/builtins.cjs';

/*
 * Where the OAuth state of a server is kept between calls and between runs: its
 * tokens (with the issuer that minted them, stamped by the SDK) and the client
 * registration it obtained by dynamic registration. The PKCE verifier, `state`
 * and discovery results live only in memory, for the one flow they belong to.
 */

/** What is kept for one server. */
export interface McpStoredAuth {
  /** The tokens, as the SDK saved them (the `issuer` that minted them stamped on). */
  tokens?: StoredOAuthTokens;
  /** When the access token expires, epoch milliseconds (from `expires_in` when it was saved). */
  expiresAt?: number;
  /** The client registration obtained by dynamic registration, or the metadata-document client id used. */
  client?: StoredOAuthClientInformation;
}

/**
 * A place to keep OAuth tokens, one entry per server key (by default the server's
 * URL). Implement it over a keychain or a secrets service; `MemoryTokenStore` (the
 * default) and `FileTokenStore` come with the package.
 */
export interface McpTokenStore {
  get(key: string): McpStoredAuth | undefined | Promise<McpStoredAuth | undefined>;
  set(key: string, value: McpStoredAuth): void | Promise<void>;
  clear(key: string): void | Promise<void>;
}

/** Tokens kept in memory, for the life of the process: the default. */
export class MemoryTokenStore implements McpTokenStore {
  private readonly entries = new Map<string, McpStoredAuth>();

  get(key: string): McpStoredAuth | undefined {
    return this.entries.get(key);
  }

  set(key: string, value: McpStoredAuth): void {
    this.entries.set(key, value);
  }

  clear(key: string): void {
    this.entries.delete(key);
  }
}

/** Read and written by the owner only: a group or world bit on the file is refused. */
const FILE_MODE = 0o600;
const DIR_MODE = 0o700;

/**
 * Tokens kept in one JSON file that only its owner may read: the file is written
 * with mode 0600 in a directory created with mode 0700, through a temporary file
 * renamed over it (a crash never leaves half a file). A file that its group or
 * others may read is refused with an error that says how to fix it, and nothing
 * is read from it. Writes within the process are queued, so concurrent saves of
 * several servers never lose one another's entry.
 */
export class FileTokenStore implements McpTokenStore {
  readonly path: string;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(path: string) {
    this.path = path;
  }

  async get(key: string): Promise<McpStoredAuth | undefined> {
    await this.queue.catch(() => undefined);
    return (await this.readAll())[key];
  }

  set(key: string, value: McpStoredAuth): Promise<void> {
    return this.update((all) => {
      all[key] = value;
    });
  }

  clear(key: string): Promise<void> {
    return this.update((all) => {
      delete all[key];
    });
  }

  private update(change: (all: Record<string, McpStoredAuth>) => void): Promise<void> {
    const next = this.queue
      .catch(() => undefined)
      .then(async () => {
        const all = await this.readAll();
        change(all);
        await this.writeAll(all);
      });
    this.queue = next;
    return next;
  }

  private async readAll(): Promise<Record<string, McpStoredAuth>> {
    const fs = fsPromises();
    let mode: number;
    try {
      mode = (await fs.stat(this.path)).mode;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
      throw error;
    }
    if (process.platform !== 'win32' && (mode & 0o077) !== 0) {
      throw new AnytoolError(
        ErrorCode.InvalidTokenFile,
        `The OAuth token file ${this.path} may be read by other users (mode ${(mode & 0o777).toString(8).padStart(3, '0')}); it was not read. Make it private with "chmod 600 ${this.path}" (and revoke its tokens if others could have read them), or delete it to sign in again.`,
      );
    }
    const text = await fs.readFile(this.path, 'utf8');
    try {
      const parsed: unknown = JSON.parse(text);
      if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) return parsed as Record<string, McpStoredAuth>;
    } catch {
      // reported below
    }
    throw new AnytoolError(
      ErrorCode.InvalidTokenFile,
      `The OAuth token file ${this.path} is not a JSON object of server keys to tokens; delete it to sign in again.`,
    );
  }

  private async writeAll(all: Record<string, McpStoredAuth>): Promise<void> {
    const fs = fsPromises();
    const dir = dirname(this.path);
    await fs.mkdir(dir, { recursive: true, mode: DIR_MODE });
    const temp = `${this.path}.${crypto().randomBytes(6).toString('hex')}.tmp`;
    try {
      await fs.writeFile(temp, `${JSON.stringify(all, null, 2)}\n`, { mode: FILE_MODE, flag: 'wx' });
      // The mode given to writeFile is cut by the umask; it is never wider than 0600, but say it outright.
      await fs.chmod(temp, FILE_MODE);
      await fs.rename(temp, this.path);
    } catch (error) {
      await fs.unlink(temp).catch(() => undefined);
      throw error;
    }
  }
}
