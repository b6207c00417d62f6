// The MCP conformance suite's test tools (server mode). Parameter schemas come from the
// types and JSDoc through `anytool build`; only json_schema_2020_12_tool spells its schema
// out, since the suite checks 2020-12 keywords ($schema, $defs) a type does not produce.
import { type ExecutionContext, Tool, imageResult, toolResult, type ToolResult } from '@anytool/core';
import { mcpSession, type McpSession } from '@anytool/mcp';

/** A 1x1 red PNG. */
export const RED_PIXEL_PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==', 'base64');

/** A short, silent mono 8 kHz 16-bit WAV file. */
export function silentWav(samples = 80): Uint8Array {
  const data = samples * 2;
  const wav = Buffer.alloc(44 + data);
  wav.write('RIFF', 0, 'ascii');
  wav.writeUInt32LE(36 + data, 4);
  wav.write('WAVEfmt ', 8, 'ascii');
  wav.writeUInt32LE(16, 16);
  wav.writeUInt16LE(1, 20);
  wav.writeUInt16LE(1, 22);
  wav.writeUInt32LE(8000, 24);
  wav.writeUInt32LE(16000, 28);
  wav.writeUInt16LE(2, 32);
  wav.writeUInt16LE(16, 34);
  wav.write('data', 36, 'ascii');
  wav.writeUInt32LE(data, 40);
  return wav;
}

const NAME = { type: 'object' as const, properties: { name: { type: 'string' as const } }, required: ['name'] };
const CONFIRM = { type: 'object' as const, properties: { ok: { type: 'boolean' as const } }, required: ['ok'] };

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function sessionOf(context: ExecutionContext, tool: string): McpSession {
  const session = mcpSession(context);
  if (session === undefined) throw new Error(`${tool} talks to the MCP client that called it; serve it with serveMcp or anytool serve`);
  return session;
}

/**
 * The test tools of the MCP conformance suite (server mode), as `@Tool`
 * methods. Each one does what its scenario asks; the ones that talk back to
 * the client (logging, sampling, elicitation) read `mcpSession(context)`.
 */
export class ConformanceTools {
  /** Returns a simple text response. */
  @Tool({ name: 'test_simple_text' })
  simpleText(): string {
    return 'This is a simple text response for testing.';
  }

  /** Returns a 1x1 red PNG image. */
  @Tool({ name: 'test_image_content' })
  imageContent(): ToolResult {
    return imageResult(RED_PIXEL_PNG);
  }

  /** Returns a short silent WAV clip. */
  @Tool({ name: 'test_audio_content' })
  audioContent(): Uint8Array {
    // Raw bytes: anytool recognizes the WAV header and sends an audio part.
    return silentWav();
  }

  /** Returns an embedded text resource. */
  @Tool({ name: 'test_embedded_resource' })
  embeddedResource(): ToolResult {
    return toolResult({
      content: [{ type: 'resource', uri: 'test://embedded-resource', mimeType: 'text/plain', text: 'This is an embedded resource content.' }],
      isError: false,
    });
  }

  /** Returns text, an image and an embedded resource together. */
  @Tool({ name: 'test_multiple_content_types' })
  multipleContentTypes(): ToolResult {
    return toolResult({
      content: [
        { type: 'text', text: 'Multiple content types test:' },
        { type: 'image', data: RED_PIXEL_PNG.toString('base64'), mimeType: 'image/png' },
        { type: 'resource', uri: 'test://mixed-content-resource', mimeType: 'application/json', text: JSON.stringify({ test: 'data', value: 123 }) },
      ],
      isError: false,
    });
  }

  /** Sends three log messages to the client while it runs. */
  @Tool({ name: 'test_tool_with_logging' })
  async toolWithLogging(context: ExecutionContext): Promise<string> {
    const session = sessionOf(context, 'test_tool_with_logging');
    await session.log('info', 'Tool execution started');
    await sleep(50);
    await session.log('info', 'Tool processing data');
    await sleep(50);
    await session.log('info', 'Tool execution completed');
    return 'Logging test completed: sent 3 log messages.';
  }

  /** Always fails, to test error reporting. */
  @Tool({ name: 'test_error_handling' })
  errorHandling(): never {
    throw new Error('This tool intentionally returns an error for testing');
  }

  /** Reports progress 0, 50 and 100 of 100 while it runs. */
  @Tool({ name: 'test_tool_with_progress' })
  async toolWithProgress(context: ExecutionContext): Promise<string> {
    // Progress goes to the run's events; served over MCP it reaches the client when it asked for progress.
    context.progress(0, 100);
    await sleep(50);
    context.progress(50, 100);
    await sleep(50);
    context.progress(100, 100);
    return 'Progress test completed.';
  }

  /**
   * Asks the client's model to answer a prompt (sampling/createMessage).
   * @param prompt The prompt to send to the LLM
   */
  @Tool({ name: 'test_sampling' })
  async sampling(prompt: string, context: ExecutionContext): Promise<string> {
    const reply = await sessionOf(context, 'test_sampling').createMessage({
      messages: [{ role: 'user', content: { type: 'text', text: prompt } }],
      maxTokens: 100,
    });
    const content = Array.isArray(reply.content) ? reply.content[0] : reply.content;
    return `LLM response: ${content?.type === 'text' ? content.text : JSON.stringify(content)}`;
  }

  /**
   * Asks the user for a username and email through the client (elicitation/create).
   * @param message The message to show the user
   */
  @Tool({ name: 'test_elicitation' })
  async elicitation(message: string, context: ExecutionContext): Promise<string> {
    const answer = await sessionOf(context, 'test_elicitation').elicitInput({
      message,
      requestedSchema: {
        type: 'object',
        properties: {
          username: { type: 'string', description: "User's response" },
          email: { type: 'string', description: "User's email address" },
        },
        required: ['username', 'email'],
      },
    });
    return `User response: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`;
  }

  /** Elicits values whose schema has defaults for every primitive type (SEP-1034). */
  @Tool({ name: 'test_elicitation_sep1034_defaults' })
  async elicitationDefaults(context: ExecutionContext): Promise<string> {
    const answer = await sessionOf(context, 'test_elicitation_sep1034_defaults').elicitInput({
      message: 'Please review and update the form fields with defaults',
      requestedSchema: {
        type: 'object',
        properties: {
          name: { type: 'string', description: 'User name', default: 'John Doe' },
          age: { type: 'integer', description: 'User age', default: 30 },
          score: { type: 'number', description: 'User score', default: 95.5 },
          status: { type: 'string', description: 'User status', enum: ['active', 'inactive', 'pending'], default: 'active' },
          verified: { type: 'boolean', description: 'Verification status', default: true },
        },
        required: [],
      },
    });
    return `Elicitation completed: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`;
  }

  /** Elicits values with every enum schema variant (SEP-1330). */
  @Tool({ name: 'test_elicitation_sep1330_enums' })
  async elicitationEnums(context: ExecutionContext): Promise<string> {
    const answer = await sessionOf(context, 'test_elicitation_sep1330_enums').elicitInput({
      message: 'Please select options from the enum fields',
      requestedSchema: {
        type: 'object',
        properties: {
          untitledSingle: { type: 'string', description: 'Untitled single-select', enum: ['option1', 'option2', 'option3'] },
          titledSingle: {
            type: 'string',
            description: 'Titled single-select',
            oneOf: [
              { const: 'value1', title: 'First Option' },
              { const: 'value2', title: 'Second Option' },
              { const: 'value3', title: 'Third Option' },
            ],
          },
          legacyEnum: {
            type: 'string',
            description: 'Legacy titled enum',
            enum: ['opt1', 'opt2', 'opt3'],
            enumNames: ['Option One', 'Option Two', 'Option Three'],
          },
          untitledMulti: { type: 'array', description: 'Untitled multi-select', items: { type: 'string', enum: ['option1', 'option2', 'option3'] } },
          titledMulti: {
            type: 'array',
            description: 'Titled multi-select',
            items: {
              anyOf: [
                { const: 'value1', title: 'First Choice' },
                { const: 'value2', title: 'Second Choice' },
                { const: 'value3', title: 'Third Choice' },
              ],
            },
          },
        },
        required: [],
      },
    });
    return `Elicitation completed: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`;
  }

  /** Closes its response stream mid-call, then answers: the client resumes with Last-Event-ID (SEP-1699). */
  @Tool({ name: 'test_reconnection' })
  async reconnection(context: ExecutionContext): Promise<string> {
    const closed = sessionOf(context, 'test_reconnection').closeStream();
    await sleep(100);
    return closed
      ? 'Reconnection test completed: the stream was closed and the result sent after it.'
      : 'Reconnection test completed (this server keeps no event store, so the stream stayed open).';
  }

  // Tools that ask the client in the middle of their work. The same code serves both protocol eras: on 2025
  // each question is a request to the client; on 2026-07-28 the call answers `input_required` with the
  // questions (under the given inputKey) and goes on when the client calls again with the answers.

  /** Asks the caller's name (elicitation), then greets them. */
  @Tool({ name: 'test_input_required_result_elicitation' })
  async inputRequiredElicitation(context: ExecutionContext): Promise<string> {
    const answer = await sessionOf(context, 'test_input_required_result_elicitation').elicitInput(
      { message: 'What is your name?', requestedSchema: NAME },
      { inputKey: 'user_name' },
    );
    return `Hello, ${String(answer.content?.['name'] ?? 'stranger')}!`;
  }

  /** Asks the client's model a question (sampling). */
  @Tool({ name: 'test_input_required_result_sampling' })
  async inputRequiredSampling(context: ExecutionContext): Promise<string> {
    const reply = await sessionOf(context, 'test_input_required_result_sampling').createMessage(
      { messages: [{ role: 'user', content: { type: 'text', text: 'What is the capital of France?' } }], maxTokens: 100 },
      { inputKey: 'capital_question' },
    );
    const content = Array.isArray(reply.content) ? reply.content[0] : reply.content;
    return `Sampling response: ${content?.type === 'text' ? content.text : JSON.stringify(content)}`;
  }

  /** Asks the client for its roots. */
  @Tool({ name: 'test_input_required_result_list_roots' })
  async inputRequiredListRoots(context: ExecutionContext): Promise<string> {
    const { roots } = await sessionOf(context, 'test_input_required_result_list_roots').listRoots({ inputKey: 'client_roots' });
    return `Client exposed ${roots.length} root(s): ${roots.map((root) => root.uri).join(', ')}`;
  }

  /** Asks for a confirmation; the call's state between the rounds is this server's to keep. */
  @Tool({ name: 'test_input_required_result_request_state' })
  async inputRequiredRequestState(context: ExecutionContext): Promise<string> {
    await sessionOf(context, 'test_input_required_result_request_state').elicitInput(
      { message: 'Please confirm', requestedSchema: CONFIRM },
      { inputKey: 'confirm' },
    );
    return 'state-ok: requestState verified and confirmation received';
  }

  /** Asks three things at once: a name, a greeting from the model, the roots. */
  @Tool({ name: 'test_input_required_result_multiple_inputs' })
  async inputRequiredMultipleInputs(context: ExecutionContext): Promise<string> {
    const session = sessionOf(context, 'test_input_required_result_multiple_inputs');
    const [name, greeting, { roots }] = await Promise.all([
      session.elicitInput({ message: 'What is your name?', requestedSchema: NAME }, { inputKey: 'user_name' }),
      session.createMessage({ messages: [{ role: 'user', content: { type: 'text', text: 'Generate a greeting' } }], maxTokens: 50 }, { inputKey: 'greeting' }),
      session.listRoots({ inputKey: 'client_roots' }),
    ]);
    const text = Array.isArray(greeting.content) ? greeting.content[0] : greeting.content;
    return `${text?.type === 'text' ? text.text : 'Hello'} ${String(name.content?.['name'] ?? 'stranger')} — ${roots.length} root(s) visible`;
  }

  /** Asks two questions, one after the other. */
  @Tool({ name: 'test_input_required_result_multi_round' })
  async inputRequiredMultiRound(context: ExecutionContext): Promise<string> {
    const session = sessionOf(context, 'test_input_required_result_multi_round');
    const name = await session.elicitInput({ message: 'Step 1: What is your name?', requestedSchema: NAME }, { inputKey: 'step1' });
    const color = await session.elicitInput(
      { message: 'Step 2: What is your favorite color?', requestedSchema: { type: 'object', properties: { color: { type: 'string' } }, required: ['color'] } },
      { inputKey: 'step2' },
    );
    return `Multi-round complete: ${String(name.content?.['name'] ?? 'unknown')} likes ${String(color.content?.['color'] ?? 'unknown')}`;
  }

  /** Asks for a confirmation; a round with a forged state is refused by the server, before this tool. */
  @Tool({ name: 'test_input_required_result_tampered_state' })
  async inputRequiredTamperedState(context: ExecutionContext): Promise<string> {
    await sessionOf(context, 'test_input_required_result_tampered_state').elicitInput(
      { message: 'Please confirm', requestedSchema: CONFIRM },
      { inputKey: 'confirm' },
    );
    return 'integrity-ok: requestState verified';
  }

  /** Asks only what the client says it can answer. */
  @Tool({ name: 'test_input_required_result_capabilities' })
  async inputRequiredCapabilities(context: ExecutionContext): Promise<string> {
    const session = sessionOf(context, 'test_input_required_result_capabilities');
    const can = session.clientCapabilities ?? {};
    const asks: Promise<unknown>[] = [];
    if (can.elicitation !== undefined) asks.push(session.elicitInput({ message: 'What is your name?', requestedSchema: NAME }, { inputKey: 'user_name' }));
    if (can.sampling !== undefined)
      asks.push(
        session.createMessage(
          { messages: [{ role: 'user', content: { type: 'text', text: 'Generate a short greeting' } }], maxTokens: 50 },
          { inputKey: 'greeting' },
        ),
      );
    if (can.roots !== undefined) asks.push(session.listRoots({ inputKey: 'client_roots' }));
    if (asks.length === 0) return 'No declared client capability supports an in-band input request';
    await Promise.all(asks);
    return 'Capability-aware input requests fulfilled';
  }

  /** Needs the client's sampling capability: a stateless client that did not declare it gets error -32021. */
  @Tool({ name: 'test_missing_capability' })
  async missingCapability(context: ExecutionContext): Promise<string> {
    await sessionOf(context, 'test_missing_capability').createMessage(
      { messages: [{ role: 'user', content: { type: 'text', text: 'Reply with the single word: pong' } }], maxTokens: 16 },
      { inputKey: 'llm_answer' },
    );
    return 'sampling round-trip complete';
  }

  /** A plain answer: its response stream carries the result only, no request to the client. */
  @Tool({ name: 'test_streaming_elicitation' })
  streamingElicitation(): string {
    return 'stream observed: result frames only, no top-level requests';
  }

  /** Logs once: delivered only when the request asked for logs at that level. */
  @Tool({ name: 'test_logging_tool' })
  async loggingTool(context: ExecutionContext): Promise<string> {
    await sessionOf(context, 'test_logging_tool').log('info', 'test_logging_tool ran (delivered only when the request set its log level)');
    return 'logged through the request-scoped, level-gated channel';
  }

  // A client of the 2026-07-28 era also sends the region as the `Mcp-Param-Region` header; the server checks
  // that header against the argument.
  @Tool({
    name: 'test_x_mcp_header',
    description: 'Echoes the region, which the client mirrors into the Mcp-Param-Region header (SEP-2243).',
    parameters: {
      type: 'object',
      properties: {
        region: { type: 'string', description: 'mirrored into Mcp-Param-Region', 'x-mcp-header': 'Region' },
        level: { type: 'integer', description: 'non-mirrored argument' },
      },
    },
  })
  xMcpHeader(args: { region?: string; level?: number }): string {
    return `region=${args.region ?? '<none>'}`;
  }

  @Tool({
    name: 'json_schema_2020_12_tool',
    description: 'Tool with JSON Schema 2020-12 features',
    parameters: {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      $defs: { address: { $anchor: 'addressDef', type: 'object', properties: { street: { type: 'string' }, city: { type: 'string' } } } },
      properties: {
        name: { type: 'string' },
        address: { $ref: '#/$defs/address' },
        contactMethod: { type: 'string', enum: ['phone', 'email'] },
        phone: { type: 'string' },
        email: { type: 'string' },
      },
      allOf: [{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }],
      if: { properties: { contactMethod: { const: 'phone' } }, required: ['contactMethod'] },
      then: { required: ['phone'] },
      else: { required: ['email'] },
      additionalProperties: false,
    },
  })
  jsonSchema202012(args: { name?: string; address?: { street?: string; city?: string }; contactMethod?: string; phone?: string; email?: string }): object {
    return { received: args };
  }
}
