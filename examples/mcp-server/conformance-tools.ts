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
    const reply = await sessionOf(context, 'test_sampling').createMessage({ messages: [{ role: 'user', content: { type: 'text', text: prompt } }], maxTokens: 100 });
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
          legacyEnum: { type: 'string', description: 'Legacy titled enum', enum: ['opt1', 'opt2', 'opt3'], enumNames: ['Option One', 'Option Two', 'Option Three'] },
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
    return closed ? 'Reconnection test completed: the stream was closed and the result sent after it.' : 'Reconnection test completed (this server keeps no event store, so the stream stayed open).';
  }

  @Tool({
    name: 'json_schema_2020_12_tool',
    description: 'Tool with JSON Schema 2020-12 features',
    parameters: {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      $defs: { address: { type: 'object', properties: { street: { type: 'string' }, city: { type: 'string' } } } },
      properties: { name: { type: 'string' }, address: { $ref: '#/$defs/address' } },
      additionalProperties: false,
    },
  })
  jsonSchema202012(args: { name?: string; address?: { street?: string; city?: string } }): object {
    return { received: args };
  }
}
