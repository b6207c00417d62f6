// The public API of @anytool/agent. Anything exported here is public API: add with care.
// The adapters over official clients live on their own subpaths, so their
// clients stay optional: `@anytool/agent/openai`, `@anytool/agent/openai-responses`, `@anytool/agent/anthropic`,
// `@anytool/agent/gemini`; so does the Redis run store, whose `redis` client is optional too:
// `@anytool/agent/redis`.

export { Agent } from './agent.js';
export type { CodeModeOptions } from './code-mode.js';
export type { AgentOptions, AgentStreamEvent, ApprovalCallback, ApprovalDecision, ApprovalRequest, RunOptions, RunResult, StopReason } from './agent.js';

export { RUN_STATE_FORMAT, RUN_STATE_VERSION, argumentsDigest } from './run-state.js';
export type { PendingItem, ResumeAnswer, ResumeAnswers, RunState } from './run-state.js';
export { DEFAULT_MAX_STATE_BYTES, DEFAULT_RUN_TTL_MS, MemoryRunStore } from './run-store.js';
export type { MemoryRunStoreOptions, RunStore, RunStoreSaveOptions } from './run-store.js';
export { addUsage, emptyUsage } from './model.js';
export type {
  AssistantMessage,
  BuiltinApproval,
  BuiltinApprovalRequest,
  BuiltinToolCall,
  Model,
  ModelDiagnostic,
  ModelMessage,
  ModelRequest,
  ModelResponse,
  ModelSettings,
  ModelStopReason,
  ModelStreamEvent,
  ModelToolCall,
  ProgrammaticCalls,
  ProviderItems,
  ToolChoice,
  ToolMessage,
  Usage,
  UserMessage,
  UserFilePart,
  UserImagePart,
  UserPart,
  UserTextPart,
} from './model.js';

export { ScriptedModel, latestToolResults } from './models/scripted.js';
export type { ScriptStep, ScriptedModelOptions, ScriptedToolCall, ScriptedTurn } from './models/scripted.js';

export { hasToolCall, stepCountIs } from './stop-condition.js';
export type { StepResult, StopCondition } from './stop-condition.js';
export type { PrepareStep, PrepareStepOptions, StepSettings } from './prepare-step.js';
export { schemaOf } from './output.js';
export type { OutputSchema, TypedJsonSchema } from './output.js';
export type { OutputFormat } from './model.js';
export type { BudgetStopReason, RunBudget, TurnUsage } from './budgets.js';
export { AgentTool } from './agent-tool.js';
export type { AgentToolOptions } from './agent-tool.js';
