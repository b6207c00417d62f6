// The client's implementation: what `McpConnection`, `McpTool` and `McpToolset` build on once a connection opens (the
// session's supervisor, the call path, tasks, paused input, the tool catalog and its checks, OAuth through the
// transports), and with them the SDK's client. It loads with the first `McpConnection.open()` (see
// load-implementation.ts), not when @anytool/mcp is imported: a program that serves, or connects later, does not
// compile it at its start.
export { CallPath } from './call-path.js';
export { answerInput, createClient } from './client-setup.js';
export { DEFAULT_HELD_TTL_MS, DEFAULT_MAX_HELD, HeldElicitations } from './held-elicitations.js';
export { DEFAULT_MAX_RESULT_BYTES } from './result-limit.js';
export { SessionSupervisor, checkRestartOptions, positive } from './supervisor.js';
export { speedUpClient } from './speedups/speedups.js';
export { stdioPid } from './transports.js';
export { redactor } from './url-credentials.js';
export { TaskCreations } from './tasks.js';
export { TaskCalls } from './task-calls.js';
export { DEFAULT_VALIDATION_TIMEOUT_MS, MAX_TIMER_MS, OffloadedValidation } from './offloaded-validation.js';
export { DEFAULT_MAX_TOOL_BYTES, DEFAULT_MAX_TOOL_DEPTH, toolLabel } from './tool-check.js';
export { ToolCatalog } from './tool-catalog.js';
export { costlyFeature } from './schema-cost.js';
export { PausingCalls } from './paused-input.js';
export { linearPatterns } from '../shared/linear-patterns.js';
