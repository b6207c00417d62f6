import * as mcp from '@anytool/mcp';

describe('the public surface of @anytool/mcp', () => {
  it('exports exactly the intended names', () => {
    expect(Object.keys(mcp).sort()).toEqual(
      [
        'MCP_AUTH_KEY', 'MCP_SESSION_KEY', 'McpConnection', 'McpTool', 'McpToolset', 'MemoryEventStore', 'createMcpServer', 'mcpAuth', 'mcpSession', 'mcpToolName',
        'readMcpServers', 'runServeCommand', 'serveMcp', 'toCallToolResult',
        'FileTokenStore', 'MemoryTokenStore', 'startLoopbackRedirect', 'MemoryStore', 'RedisStore', 'StoreEventStore',
      ].sort(),
    );
  });

  it('exports no error class of its own: every error is an AnytoolError with a code', () => {
    const errorClasses = (Object.values(mcp) as unknown[]).filter((v) => typeof v === 'function' && (v as Function).prototype instanceof Error);
    expect(errorClasses).toEqual([]);
  });

  it('keeps its internals private', () => {
    for (const name of ['mapCallResult', 'CallSession', 'checkHost', 'encodeCursor']) expect(name in mcp).toBe(false);
  });
});
