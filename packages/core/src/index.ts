// The public API of @anytool/core. Anything exported here is public API: add with care.
// What the sibling packages share and users need not see goes through `@anytool/core/internal`.

export { AnytoolError, ErrorCode, isAnytoolError } from './errors.js';
export type { AnytoolErrorOptions } from './errors.js';

export { ExecutionContext, isExecutionContext } from './execution-context.js';
export type { ContextAccess } from './context-access.js';
export type {
  DiagnosticEvent,
  ExecutionContextOptions,
  RunErrorEvent,
  RunEvent,
  RunEventInput,
  RunEventListener,
  RunMessageEvent,
  RunProgressEvent,
  ToolCallEvent,
  ToolResultEvent,
  TextDeltaEvent,
  ToolCallStartEvent,
  ToolCallDeltaEvent,
  NestedRunEvent,
} from './execution-context.js';

export { DiagnosticLog, MAX_DIAGNOSTICS } from './diagnostics.js';
export type { Diagnostic, DiagnosticInput, DiagnosticListener } from './diagnostics.js';

export { Pipeline } from './pipeline/pipeline.js';
export type { ToolInvoker } from './pipeline/pipeline.js';
export { ToolCall } from './pipeline/tool-call.js';
export type { Middleware } from './pipeline/tool-call.js';
export { approval, askApproval, needsApproval } from './pipeline/approval.js';
export type {
  ApprovalCallback,
  ApprovalDecision,
  ApprovalOptions,
  ApprovalPolicy,
  ApprovalRequest,
  PolicyRequest,
  PolicyVerdict,
} from './pipeline/approval.js';
export { awaitResult, requestInput } from './interruptions.js';
export type { InputQuestion, Interruption, InterruptionAnswer, InterruptionKind } from './interruptions.js';
export { ToolPins } from './pipeline/tool-pins.js';
export type { ChangedField, DefinitionChange, PinComparison, PinnedDefinition, PinnedField, ToolPin, ToolPinsJson } from './pipeline/tool-pins.js';
export { DEFAULT_OUTPUT_BUDGET_TOKENS, outputBudget } from './pipeline/output-budget.js';
export { DEFAULT_MAX_ERROR_CHARS } from './error-text.js';
export type { OutputBudgetOptions, OutputLimit } from './pipeline/output-budget.js';
export { ToolOutputStore } from './outputs/output-store.js';
export type { OutputPage, StoredOutput, ToolOutputStoreOptions } from './outputs/output-store.js';
export { ReadToolOutput } from './outputs/read-tool-output.js';
export type { ReadToolOutputOptions } from './outputs/read-tool-output.js';

export { tracing } from './tracing/tracing.js';
export type { TracingOptions } from './tracing/tracing.js';
export type { TelemetryProviders } from './tracing/otel.js';
export { extractTraceContext, injectTraceContext } from './tracing/trace-context.js';

export type { BuiltinDeclaration, BuiltinFormat, JsonSchema, ToolAnnotations, ToolDefinition, ToolOrigin } from './tool-definition.js';

export { errorResult, imageResult, isToolResult, normalizeResult, resultText, textResult, toolResult } from './tool-result.js';
export type { AudioContent, ContentPart, ImageContent, ResourceContent, ResourceLinkContent, TextContent, ToolResult } from './tool-result.js';

export { BaseTool, isBaseTool } from './base-tool.js';
export type { BaseToolOptions, InvokeOptions } from './base-tool.js';

export type { ArgumentPreparer, ToolBuildInfo } from './build-info.js';

export { BuiltinTool, ClientTool, builtin, isProviderTool } from './builtin-tool.js';
export type { BuiltinToolOptions, ClientToolHandler, MemoryArgs, TextEditorArgs } from './builtin-tool.js';

export { FunctionTool, tool } from './function-tool.js';
export type { AnyFunction, FunctionToolOptions } from './function-tool.js';

export { Tool, defineTool } from './decorators/tool.js';
export type { ToolDecorator } from './decorators/tool.js';
export { Context, defineContext } from './decorators/context.js';
export type { ContextDecorator } from './decorators/context.js';
export type { ToolOptions, ToolRecord } from './decorators/records.js';

export { MethodTool, toolsFrom } from './method-tool.js';

export { Toolset, isToolset } from './toolset.js';
export type { DynamicToolSource, ToolSource } from './toolset.js';
export { toolsetFromModule } from './module-tools.js';
export type { CodeApi, CodeApiFunction } from './code-mode/declarations.js';
export { keywordRanker, toolSearchFound, toolSearchTool } from './tool-search.js';
export type { ToolRanker, ToolSearchOptions, ToolSearchResult } from './tool-search.js';
export type { ModuleToolsOptions } from './module-tools.js';

export type { StandardSchemaV1 } from './standard-schema.js';

export { lowerDefinitions } from './providers/index.js';
export type { DefinitionFormat, FormatMap, FormatOptions, FormatTool, Lowered, LoweringNote } from './providers/index.js';
export { toOpenAIChatTools, toOpenAIResponsesTools } from './providers/openai.js';
export type {
  OpenAIChatTool,
  OpenAIFormatOptions,
  OpenAIResponsesBuiltinTool,
  OpenAIResponsesTool,
  OpenAIResponsesToolSearchTool,
} from './providers/openai.js';
export { toAnthropicTools } from './providers/anthropic.js';
export type { AnthropicBuiltinTool, AnthropicFormatOptions, AnthropicTool, AnthropicToolSearchTool } from './providers/anthropic.js';
export { toGeminiToolList, toGeminiTools } from './providers/gemini.js';
export type { GeminiBuiltinTool, GeminiFunctionDeclaration, GeminiTool } from './providers/gemini.js';
export { toMcpTools } from './providers/mcp.js';
export type { McpToolDefinition } from './providers/mcp.js';
export type { PatternEngine } from './validation.js';
