import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as core from '@anytool/core';
import * as internal from '@anytool/core/internal';
import { domGlobals, exportedNames } from '../../../test/helpers/export-names';

const entry = (name: string): string => join(__dirname, '..', 'src', `${name}.ts`);

describe('the public surface of @anytool/core', () => {
  it('exports exactly the intended names', () => {
    expect(Object.keys(core).sort()).toEqual(
      [
        'AnytoolError',
        'BaseTool',
        'BuiltinTool',
        'ClientTool',
        'DEFAULT_MAX_ERROR_CHARS',
        'DEFAULT_OUTPUT_BUDGET_TOKENS',
        'Context',
        'DiagnosticLog',
        'ErrorCode',
        'ExecutionContext',
        'FunctionTool',
        'MAX_DIAGNOSTICS',
        'MethodTool',
        'Pipeline',
        'ReadToolOutput',
        'Tool',
        'ToolCall',
        'ToolOutputStore',
        'ToolPins',
        'Toolset',
        'approval',
        'askApproval',
        'awaitResult',
        'builtin',
        'defineContext',
        'defineTool',
        'errorResult',
        'extractTraceContext',
        'imageResult',
        'injectTraceContext',
        'isAnytoolError',
        'isBaseTool',
        'isExecutionContext',
        'isProviderTool',
        'isToolResult',
        'isToolset',
        'lowerDefinitions',
        'needsApproval',
        'normalizeResult',
        'outputBudget',
        'requestInput',
        'resultText',
        'textResult',
        'toAnthropicTools',
        'toGeminiToolList',
        'toGeminiTools',
        'toMcpTools',
        'toOpenAIChatTools',
        'toOpenAIResponsesTools',
        'tool',
        'toolResult',
        'keywordRanker',
        'toolSearchFound',
        'toolSearchTool',
        'toolsFrom',
        'toolsetFromModule',
        'tracing',
      ].sort(),
    );
    expect(exportedNames(entry('index')).values).toEqual(Object.keys(core).sort());
  });

  it('exports exactly the intended types', () => {
    expect(exportedNames(entry('index')).types).toEqual(
      [
        'AnthropicBuiltinTool',
        'AnthropicFormatOptions',
        'AnthropicTool',
        'AnthropicToolSearchTool',
        'AnyFunction',
        'AnytoolErrorOptions',
        'ApprovalCallback',
        'ApprovalDecision',
        'ApprovalOptions',
        'ApprovalPolicy',
        'ApprovalRequest',
        'ArgumentPreparer',
        'AudioContent',
        'BaseToolOptions',
        'BuiltinDeclaration',
        'BuiltinFormat',
        'BuiltinToolOptions',
        'ChangedField',
        'ClientToolHandler',
        'CodeApi',
        'CodeApiFunction',
        'ContentPart',
        'ContextAccess',
        'ContextDecorator',
        'DefinitionChange',
        'DefinitionFormat',
        'Diagnostic',
        'DiagnosticEvent',
        'DiagnosticInput',
        'DiagnosticListener',
        'DynamicToolSource',
        'ExecutionContextOptions',
        'FormatMap',
        'FormatOptions',
        'FormatTool',
        'FunctionToolOptions',
        'GeminiBuiltinTool',
        'GeminiFunctionDeclaration',
        'GeminiTool',
        'ImageContent',
        'InputQuestion',
        'Interruption',
        'InterruptionAnswer',
        'InterruptionKind',
        'InvokeOptions',
        'JsonSchema',
        'Lowered',
        'LoweringNote',
        'McpToolDefinition',
        'MemoryArgs',
        'Middleware',
        'ModuleToolsOptions',
        'NestedRunEvent',
        'OpenAIChatTool',
        'OpenAIFormatOptions',
        'OpenAIResponsesBuiltinTool',
        'OpenAIResponsesTool',
        'OpenAIResponsesToolSearchTool',
        'OutputBudgetOptions',
        'OutputLimit',
        'OutputPage',
        'PatternEngine',
        'ReadToolOutputOptions',
        'StoredOutput',
        'ToolOutputStoreOptions',
        'PinComparison',
        'PinnedDefinition',
        'PinnedField',
        'PolicyRequest',
        'PolicyVerdict',
        'ResourceContent',
        'ResourceLinkContent',
        'RunErrorEvent',
        'RunEvent',
        'RunEventInput',
        'RunEventListener',
        'RunMessageEvent',
        'RunProgressEvent',
        'StandardSchemaV1',
        'TelemetryProviders',
        'TextContent',
        'TextDeltaEvent',
        'TextEditorArgs',
        'ToolAnnotations',
        'ToolBuildInfo',
        'ToolCallDeltaEvent',
        'ToolCallEvent',
        'ToolCallStartEvent',
        'ToolDecorator',
        'ToolDefinition',
        'ToolInvoker',
        'ToolOptions',
        'ToolOrigin',
        'ToolPin',
        'ToolPinsJson',
        'ToolRecord',
        'ToolResult',
        'ToolResultEvent',
        'ToolRanker',
        'ToolSearchOptions',
        'ToolSearchResult',
        'ToolSource',
        'TracingOptions',
      ].sort(),
    );
  });

  it('shares plumbing with the other packages through @anytool/core/internal, and nothing public twice', () => {
    const names = [
      'BUILD_INFO',
      'MAX_TOOL_NAME_LENGTH',
      'TOOL_NAME_RULES',
      'WHOLE_ARGUMENTS',
      'abortWatch',
      'allowPausing',
      'budgetChars',
      'canPause',
      'canonicalJson',
      'checkToolName',
      'compileValidator',
      'describeError',
      'exampleProblems',
      'formatProblems',
      'giveAnswers',
      'interrupt',
      'isPlainObject',
      'isRecord',
      'loadToolModule',
      'maxErrorCharsProblem',
      'now',
      'recordInterruption',
      'schemaProblems',
      'sha256Hex',
      'sniffMimeType',
      'suggestToolName',
      'takeAnswer',
      'takeAnswers',
      'takeInterruption',
      'takeInterruptions',
      'takeOwnAnswer',
      'toBase64',
      'toError',
      'unknownToolText',
      'unrestrictedContext',
      'closestName',
      // An agent's structured output: its schema read, its check and its nulls as strict tool arguments'.
      'compileNullStripper',
      'isStandardSchema',
      'issuesToProblems',
      'standardToJsonSchema',
      // Whether the OpenTelemetry API (an optional peer) is here, for mcp's and agent's spans.
      'needOpenTelemetry',
      'nothingRegistered',
      'openTelemetry',
      'providersGiven',
      // Waiters on a run's abort signal that are objects of their own (an async call's abort race).
      'watchAbort',
      'unwatchAbort',
      // An agent's model adapter keeps its last turn's lowered tools.
      'LoweringMemo',
    ];
    expect(Object.keys(internal).sort()).toEqual(names.sort());
    expect(exportedNames(entry('internal'))).toEqual({ values: names.sort(), types: ['AbortWaiter', 'ArgsValidator', 'ArgumentProblem', 'OpenTelemetry'] });
    for (const name of Object.keys(internal)) expect([name, name in core]).toEqual([name, false]);
    expect(readFileSync(entry('internal'), 'utf8')).toMatch(/Not public API[\s\S]*any release/);
  });

  it('exports no name that shadows a DOM global, public or internal', () => {
    const dom = domGlobals();
    expect(dom.has('MessageEvent')).toBe(true);
    const names = ['index', 'internal', 'runtime'].flatMap((file) => Object.values(exportedNames(entry(file))).flat());
    expect(names.filter((name) => dom.has(name))).toEqual([]);
  });

  it('exposes its subpaths in package.json for ES modules, CommonJS and old TypeScript resolution', () => {
    const manifest = JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')) as {
      exports: Record<string, unknown>;
      typesVersions: Record<string, Record<string, string[]>>;
      sideEffects: unknown;
      dependencies: Record<string, string>;
    };
    expect(Object.keys(manifest.exports)).toEqual(['.', './runtime', './internal', './code-mode', './package.json']);
    // Code mode's runner: its own entry, its sandbox libraries optional peers. ES modules import the bundled entries
    // (scripts/bundle-esm.mjs), typed by tsc's declarations.
    expect(manifest.exports['./code-mode']).toEqual({
      import: { types: './dist/esm/code-mode/index.d.ts', default: './dist/bundle/code-mode.js' },
      require: { types: './dist/cjs/code-mode/index.d.ts', default: './dist/cjs/code-mode/index.js' },
    });
    expect(manifest.exports['./internal']).toEqual({
      import: { types: './dist/esm/internal.d.ts', default: './dist/bundle/internal.js' },
      require: { types: './dist/cjs/internal.d.ts', default: './dist/cjs/internal.js' },
    });
    expect(manifest.typesVersions['*']).toEqual({
      runtime: ['./dist/cjs/runtime.d.ts'],
      internal: ['./dist/cjs/internal.d.ts'],
      'code-mode': ['./dist/cjs/code-mode/index.d.ts'],
    });
    expect(manifest.sideEffects).toBe(false);
    expect(manifest.dependencies['reflect-metadata']).toBeUndefined();
  });

  it('every exported error class carries a code from ErrorCode', () => {
    const codes = new Set<string>(Object.values(core.ErrorCode));
    const errorClasses = (Object.values(core) as unknown[]).filter((v): v is Function => typeof v === 'function' && v.prototype instanceof Error);
    expect(errorClasses.length).toBeGreaterThan(0);
    for (const ErrorClass of errorClasses) {
      const instance = new (ErrorClass as unknown as new (code: string, message: string) => core.AnytoolError)(core.ErrorCode.ToolFailed, 'x');
      expect(codes.has(instance.code)).toBe(true);
    }
    expect(new Set(Object.values(core.ErrorCode)).size).toBe(Object.values(core.ErrorCode).length);
  });

  it('keeps storage internals private', () => {
    for (const name of [
      'readToolRecords',
      'addToMetadata',
      'TOOL_RECORDS',
      'CONTEXT_PARAMS',
      'makeInvoker',
      'compileNullStripper',
      'BRAND',
      'setBrand',
      'hasBrand',
      'Chain',
      'invokeThrough',
      'runChain',
      'TOOL_STAGE',
    ])
      expect(name in core).toBe(false);
  });
});
