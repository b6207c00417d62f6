import * as core from '@anytool/core';

describe('the public surface of @anytool/core', () => {
  it('exports exactly the intended names', () => {
    expect(Object.keys(core).sort()).toEqual(
      [
        'AnytoolError', 'BUILD_INFO', 'BaseTool', 'BuiltinTool', 'ClientTool', 'builtin', 'isProviderTool', 'toGeminiToolList', 'Context', 'DiagnosticLog', 'ErrorCode', 'ExecutionContext', 'FunctionTool', 'MAX_DIAGNOSTICS', 'MAX_TOOL_NAME_LENGTH', 'MethodTool',
        'Pipeline', 'TOOL_NAME_RULES', 'Tool', 'ToolCall', 'Toolset', 'WHOLE_ARGUMENTS', 'abortWatch', 'approval', 'askApproval', 'checkToolName', 'compileValidator', 'defineContext', 'defineTool', 'describeError',
        'errorResult', 'extractTraceContext', 'formatProblems', 'imageResult', 'injectTraceContext', 'isAnytoolError', 'isBaseTool', 'isExecutionContext', 'isToolResult', 'isToolset', 'loadToolModule', 'lowerDefinitions',
        'needsApproval', 'normalizeResult', 'now', 'outputBudget', 'resultText', 'schemaProblems',
        'sniffMimeType', 'suggestToolName', 'textResult', 'toAnthropicTools', 'toBase64', 'toGeminiTools', 'toMcpTools', 'toOpenAIChatTools',
        'toOpenAIResponsesTools', 'tool', 'toolResult', 'toolsFrom', 'toolsetFromModule', 'tracing', 'unknownToolText',
      ].sort(),
    );
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
    for (const name of ['readToolRecords', 'addToMetadata', 'TOOL_RECORDS', 'CONTEXT_PARAMS', 'makeInvoker', 'compileNullStripper', 'BRAND', 'setBrand', 'hasBrand', 'Chain', 'invokeThrough', 'runChain', 'TOOL_STAGE']) expect(name in core).toBe(false);
  });
});
