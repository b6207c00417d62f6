import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { isEraNegotiationFailure, isProbeCutShort } from '../../src/client/sdk-errors';
import { negotiationFor } from '../../src/client/era';
import { scaled } from '../../../core/test/helpers/time-scale';

/*
 * `isProbeCutShort` is the one place that reads the text of an SDK error (the SDK gives a probe cut
 * short by a closed connection and a server that did not offer the pinned era the same class and
 * code). These tests pin it against the installed SDK: when the SDK words either case differently,
 * one of them fails.
 */

jest.setTimeout(scaled(60_000));

const EVERYTHING = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');

/** The error of connecting, pinned to the modern era (as `protocol: "modern"` does), to a server run with `args`. */
async function pinnedModernFailure(args: string[]): Promise<unknown> {
  const client = new Client({ name: 'sdk-errors', version: '1' }, { versionNegotiation: negotiationFor('modern', scaled(5_000)) });
  try {
    await client.connect(new StdioClientTransport({ command: process.execPath, args, stderr: 'ignore' }), { timeout: scaled(10_000) });
    return undefined;
  } catch (error) {
    return error;
  } finally {
    await client.close().catch(() => undefined);
  }
}

describe('isProbeCutShort against @modelcontextprotocol/client', () => {
  it('is true when the server exits during the server/discover probe', async () => {
    const error = await pinnedModernFailure(['-e', "process.stdin.once('data', () => process.exit(0))"]);
    expect(isEraNegotiationFailure(error)).toBe(true);
    expect(isProbeCutShort(error)).toBe(true);
  });

  it('is false when a server answers the probe without offering the modern era', async () => {
    // server-everything is built on the v1 SDK: it speaks the 2025 era only.
    const error = await pinnedModernFailure([EVERYTHING, 'stdio']);
    expect(isEraNegotiationFailure(error)).toBe(true);
    expect(isProbeCutShort(error)).toBe(false);
  });
});
