import { McpConnection } from '@anytool/mcp';
import { RequestTable } from '../../../src/client/speedups/request-tables';
import { speedups } from '../../../src/client/speedups/speedups';
import { fixture } from '../helpers';
import { scaled } from '../../../../core/test/helpers/time-scale';

jest.setTimeout(scaled(30_000));

/*
 * The speed tricks sit behind one boundary (`speedups/speedups.ts`), and `ANYTOOL_MCP_WITHOUT`
 * (for benchmarking) leaves them out: the connection then runs on the SDK's public path alone,
 * with the same results.
 */

/** The SDK client of a connection's open session, for its private request tables. */
const sdkOf = (connection: McpConnection) => connection.sdkClient as unknown as Record<string, unknown>;

describe('the speed tricks behind speedups/speedups.ts', () => {
  const before = process.env['ANYTOOL_MCP_WITHOUT'];
  afterEach(() => {
    if (before === undefined) delete process.env['ANYTOOL_MCP_WITHOUT'];
    else process.env['ANYTOOL_MCP_WITHOUT'] = before;
  });

  it('reads ANYTOOL_MCP_WITHOUT: names, all, or nothing', () => {
    delete process.env['ANYTOOL_MCP_WITHOUT'];
    expect([...speedups()].sort()).toEqual(['batch-writes', 'http-direct', 'plain-results', 'read-shortcut', 'request-tables']);
    process.env['ANYTOOL_MCP_WITHOUT'] = 'plain-results, http-direct';
    expect([...speedups()].sort()).toEqual(['batch-writes', 'read-shortcut', 'request-tables']);
    process.env['ANYTOOL_MCP_WITHOUT'] = 'all';
    expect(speedups().size).toBe(0);
  });

  it.each([
    ['with them', undefined, true],
    ['without them', 'all', false],
  ])('a stdio connection %s answers calls at once the same', async (_, without, tricks) => {
    if (without === undefined) delete process.env['ANYTOOL_MCP_WITHOUT'];
    else process.env['ANYTOOL_MCP_WITHOUT'] = without;
    const connection = await McpConnection.open('f', fixture());
    try {
      expect(sdkOf(connection)['_responseHandlers'] instanceof RequestTable).toBe(tricks);
      const texts = Array.from({ length: 20 }, (_, i) => `call ${i}`);
      const results = await Promise.all(texts.map((text) => connection.callTool('echo', { message: text })));
      expect(results.map((result) => result.content)).toEqual(texts.map((text) => [{ type: 'text', text }]));
      expect(connection.diagnostics.filter((line) => line.includes('MCP SDK'))).toEqual([]);
    } finally {
      await connection.close();
    }
  });
});
