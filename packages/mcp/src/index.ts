// The public API of @anytool/mcp. Anything exported here is public API: add with care.

// Server: any tools served as an MCP server.
export { serveMcp } from './server/serve-mcp.js';
export type { McpServerHandle, ServeMcpOptions, StdioServeOptions } from './server/serve-mcp.js';
export type { HttpServeOptions } from './server/http.js';
export { createMcpServer } from './server/tool-server.js';
export type { McpServerOptions } from './server/tool-server.js';
export { MCP_SESSION_KEY, mcpSession } from './server/mcp-session.js';
export type { McpSession } from './server/mcp-session.js';
export { toCallToolResult } from './server/result-content.js';
