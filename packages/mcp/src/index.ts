// The public API of @anytool/mcp. Anything exported here is public API: add with care.
// What the anytool command of @anytool/schema shares with this package goes through `@anytool/mcp/internal`.

// Server: any tools served as an MCP server.
export { serveMcp } from './server/lazy-server.js';
export type { McpServerHandle, ServeMcpOptions, StdioServeOptions } from './server/serve-mcp.js';
export type { HttpServeOptions } from './server/http.js';
export { createMcpServer } from './server/lazy-server.js';
export type { McpServerOptions } from './server/tool-server.js';
export { MCP_SESSION_KEY, mcpSession } from './shared/mcp-session.js';
export type { McpAskOptions, McpSession } from './shared/mcp-session.js';
export { toCallToolResult } from './server/result-content.js';
export { MemoryEventStore } from './server/memory-event-store.js';
export { MemoryStore } from './store/memory-store.js';
export type { McpStore } from './store/store.js';
export { RedisStore } from './store/redis-store.js';
export type { RedisStoreOptions } from './store/redis-store.js';
export { MCP_AUTH_KEY, mcpAuth } from './server/mcp-auth.js';
export type { JwtAuthOptions, McpAuth, McpAuthOptions, StaticToken } from './server/auth.js';
export type { TaskRecord, TaskStatus } from './server/tasks/record.js';
export { BullmqTaskQueue } from './server/tasks/bullmq-queue.js';
export type { BullmqTaskQueueOptions } from './server/tasks/bullmq-queue.js';
export { runTaskWorker } from './server/lazy-server.js';
export type { TaskWorkerHandle, TaskWorkerOptions } from './server/task-worker.js';
export { StoreEventStore } from './server/store-event-store.js';
export type { StoreEventStoreOptions } from './server/store-event-store.js';

// Client: MCP servers' tools as BaseTools over kept connections.
export { McpToolset } from './client/mcp-toolset.js';
export type { McpToolsetOptions } from './client/mcp-toolset.js';
export type { ResultSizeHints } from './client/result-size-hint.js';
export { CONTEXT_META_KEY, McpTool } from './client/mcp-tool.js';
export { McpConnection } from './client/connection.js';
export type {
  ElicitationHandler,
  ElicitationOption,
  McpCallOptions,
  McpClientOptions,
  McpRestartOptions,
  McpRoot,
  SamplingHandler,
} from './client/connection.js';
export { readMcpServers } from './client/config.js';
export type { McpHttpServerConfig, McpServerConfig, McpServersConfig, McpServerTuning, McpStdioServerConfig } from './client/config.js';
export { mcpToolName } from './client/tool-names.js';
export { FileTokenStore, MemoryTokenStore } from './client/auth/token-store.js';
export type { McpStoredAuth, McpTokenStore } from './client/auth/token-store.js';
export { startLoopbackRedirect } from './client/auth/loopback.js';
export type { LoopbackRedirect, LoopbackRedirectOptions } from './client/auth/loopback.js';
export type {
  McpAuthorizationCodeAuth,
  McpAuthorizeInfo,
  McpClientCredentialsAuth,
  McpOAuthCommon,
  McpOAuthConfig,
  McpProviderAuth,
} from './client/auth/oauth.js';
export type { McpTaskHandle, McpTaskStatus, McpTaskStatusName } from './client/tasks.js';
