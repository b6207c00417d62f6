// A stdio server that logs a secret (a database password) to stderr and dies during a call, or while it is started
// again for one: the last lines of its stderr go to the developer (the result's error.message and detail, the
// connection's diagnostics), never into what the model reads, unless the server's entry opts in with stderrToModel.
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ErrorCode, Toolset, isAnytoolError, resultText, type ToolResult } from '@anytool/core';
import { Agent, ScriptedModel } from '@anytool/agent';
import { McpConnection, McpToolset, readMcpServers, type McpServerConfig } from '@anytool/mcp';
import { connectForEachTest, tempDir } from './helpers';
import { scaled } from '../../../core/test/helpers/time-scale';

jest.setTimeout(scaled(60_000));

const SERVER = join(__dirname, '..', 'fixtures', 'broken-server', 'server.mjs');
const PASSWORD = 'hunter2-s3cret';
const SECRET = `postgres://app:${PASSWORD}@db/prod`;

function crashy(extra: Partial<McpServerConfig> & { env?: Record<string, string> } = {}): McpServerConfig {
  return { command: process.execPath, args: [SERVER, 'stdio', 'crash-with-secret'], ...extra, env: { CRASH_SECRET: SECRET, ...extra.env } } as McpServerConfig;
}

/** What a model reads of a result: its content. */
const modelText = (result: ToolResult): string => JSON.stringify(result.content);

describe('a crashed stdio server’s stderr', () => {
  const connect = connectForEachTest();

  it('stays with the developer when the server dies mid-call: not in the content or the model’s request, in error.message and diagnostics', async () => {
    const mcp = await connect({ mcpServers: { db: crashy() } });
    const model = new ScriptedModel([{ toolCalls: [{ id: 'c1', name: 'crash', arguments: {} }] }, { text: 'done' }]);
    const run = await new Agent({ model, tools: mcp, approve: () => true }).run('crash it');
    expect(run.text).toBe('done');
    const result = run.context.events.find((e) => e.type === 'tool_result')!.result;

    expect(result.error?.code).toBe(ErrorCode.McpConnectionClosed);
    expect(resultText(result)).toBe(
      'Tool "crash" failed: MCP server "db" closed the connection while tool "crash" was running; the next call starts it again.',
    );
    expect(modelText(result)).not.toContain(PASSWORD);
    // Nothing of the secret went to the model provider: a tool message reaches it as its result's content.
    const sent = model.requests.flatMap((r) => r.messages).flatMap((m) => (m.role === 'tool' ? [m.result.content] : []));
    expect(sent).toEqual([result.content]);
    expect(JSON.stringify(sent)).not.toContain(PASSWORD);
    // The developer has the tail: in the result's developer message and in the connection's diagnostics.
    expect(result.error?.message).toContain(`Last lines of its stderr:\nbroken[`);
    expect(result.error?.message).toContain(SECRET);
    expect(result.error?.message).toContain('fatal: lost the database');
    expect(mcp.connection('db')!.diagnostics.some((d) => d.includes(SECRET))).toBe(true);
  });

  it('stays with the developer when the start again for a call fails too; the error of McpConnection.callTool has it as detail', async () => {
    const flag = join(tempDir('stderr'), 'crash-on-start');
    const connection = await McpConnection.open('db', crashy({ env: { CRASH_ON_START: flag } }), { restart: { maxAttempts: 2, initialDelayMs: 10 } });
    try {
      const toolset = new Toolset(McpToolset.from([connection]));
      expect((await toolset.invoke('crash', {})).error?.code).toBe(ErrorCode.McpConnectionClosed);
      writeFileSync(flag, '');
      const again = await toolset.invoke('crash', {});
      expect(again.error?.code).toBe(ErrorCode.McpConnectFailed);
      expect(resultText(again)).toMatch(
        /^Tool "crash" failed: MCP server "db" stopped and could not be started again in 2 attempts: Could not start MCP server "db"/,
      );
      expect(modelText(again)).not.toContain(PASSWORD);
      expect(again.error?.message).toContain(SECRET);
      expect(again.error?.message).toContain('fatal: cannot start');
      // Called directly, the coded error keeps the tail out of its message, in its detail.
      const thrown = await connection.callTool('crash', {}).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(isAnytoolError(thrown) && thrown.code).toBe(ErrorCode.McpConnectFailed);
      expect((thrown as Error).message).not.toContain(PASSWORD);
      expect(isAnytoolError(thrown) && thrown.detail).toContain(SECRET);
    } finally {
      rmSync(flag, { force: true });
      await connection.close();
    }
  });

  it('reaches the model when the server’s entry opts in with stderrToModel: true', async () => {
    const mcp = await connect({ mcpServers: { db: crashy({ stderrToModel: true }) } });
    const result = await new Toolset(mcp).invoke('crash', {});
    expect(result.error?.code).toBe(ErrorCode.McpConnectionClosed);
    expect(resultText(result)).toMatch(/the next call starts it again\. Last lines of its stderr:\nbroken\[\d+\]: /);
    expect(resultText(result)).toContain(`connecting to ${SECRET}`);
    expect(() => readMcpServers({ mcpServers: { db: crashy({ stderrToModel: 'yes' as never }) } })).toThrow(
      expect.objectContaining({ code: ErrorCode.InvalidMcpConfig, message: 'MCP server "db": "stderrToModel" must be true or false (got "yes")' }),
    );
  });
});
