import { BuiltinTool, ErrorCode, Toolset, builtin, type ToolAnnotations } from '@anytool/core';

type Format = 'openai-responses' | 'anthropic' | 'gemini';

interface Expected {
  make: () => BuiltinTool;
  format: Format;
  name: string;
  description: string;
  annotations?: ToolAnnotations;
  source: string;
  declaration: Record<string, unknown>;
}

const WEB: ToolAnnotations = { readOnly: true, openWorld: true };

// Every constructor of a tool its provider runs, with what it made before the constructors shared one factory.
const cases: Record<string, Expected> = {
  'openai.webSearch': {
    make: () => builtin.openai.webSearch({ search_context_size: 'low' }),
    format: 'openai-responses',
    name: 'openai_web_search',
    description: 'Search the web (run by OpenAI).',
    annotations: WEB,
    source: 'OpenAI (Responses API) built-in',
    declaration: { type: 'web_search', search_context_size: 'low' },
  },
  'openai.fileSearch': {
    make: () => builtin.openai.fileSearch({ vector_store_ids: ['vs_1'] }),
    format: 'openai-responses',
    name: 'openai_file_search',
    description: 'Search the uploaded files (run by OpenAI).',
    annotations: { readOnly: true },
    source: 'OpenAI (Responses API) built-in',
    declaration: { type: 'file_search', vector_store_ids: ['vs_1'] },
  },
  'openai.codeInterpreter': {
    make: () => builtin.openai.codeInterpreter(),
    format: 'openai-responses',
    name: 'openai_code_interpreter',
    description: 'Run Python code in a sandbox (run by OpenAI).',
    source: 'OpenAI (Responses API) built-in',
    declaration: { type: 'code_interpreter', container: { type: 'auto' } },
  },
  'openai.imageGeneration': {
    make: () => builtin.openai.imageGeneration({ quality: 'high' }),
    format: 'openai-responses',
    name: 'openai_image_generation',
    description: 'Generate an image (run by OpenAI).',
    source: 'OpenAI (Responses API) built-in',
    declaration: { type: 'image_generation', quality: 'high' },
  },
  'openai.mcp': {
    make: () => builtin.openai.mcp({ server_label: 'docs/v2', server_url: 'https://mcp.example.com/mcp', require_approval: 'always' }),
    format: 'openai-responses',
    name: 'openai_mcp_docs_v2',
    description: 'Tools of the remote MCP server "docs/v2" (called by OpenAI).',
    source: 'OpenAI (Responses API) built-in',
    declaration: { type: 'mcp', require_approval: 'always', server_label: 'docs/v2', server_url: 'https://mcp.example.com/mcp' },
  },
  'anthropic.webSearch': {
    make: () => builtin.anthropic.webSearch({ max_uses: 3 }),
    format: 'anthropic',
    name: 'anthropic_web_search',
    description: 'Search the web (run by Anthropic).',
    annotations: WEB,
    source: 'Anthropic built-in',
    declaration: { type: 'web_search_20250305', name: 'web_search', max_uses: 3 },
  },
  'anthropic.webFetch': {
    make: () => builtin.anthropic.webFetch(),
    format: 'anthropic',
    name: 'anthropic_web_fetch',
    description: 'Fetch a web page or PDF (run by Anthropic).',
    annotations: WEB,
    source: 'Anthropic built-in',
    declaration: { type: 'web_fetch_20250910', name: 'web_fetch' },
  },
  'anthropic.codeExecution': {
    make: () => builtin.anthropic.codeExecution(),
    format: 'anthropic',
    name: 'anthropic_code_execution',
    description: 'Run code in a sandbox (run by Anthropic).',
    source: 'Anthropic built-in',
    declaration: { type: 'code_execution_20250825', name: 'code_execution' },
  },
  'gemini.googleSearch': {
    make: () => builtin.gemini.googleSearch({ timeRangeFilter: { startTime: '2025-01-01T00:00:00Z' } }),
    format: 'gemini',
    name: 'gemini_google_search',
    description: 'Ground the answer in Google Search (run by Gemini).',
    annotations: WEB,
    source: 'Gemini built-in',
    declaration: { googleSearch: { timeRangeFilter: { startTime: '2025-01-01T00:00:00Z' } } },
  },
  'gemini.codeExecution': {
    make: () => builtin.gemini.codeExecution(),
    format: 'gemini',
    name: 'gemini_code_execution',
    description: 'Run Python code (run by Gemini).',
    source: 'Gemini built-in',
    declaration: { codeExecution: {} },
  },
  'gemini.urlContext': {
    make: () => builtin.gemini.urlContext(),
    format: 'gemini',
    name: 'gemini_url_context',
    description: 'Read the web pages linked in the prompt (run by Gemini).',
    annotations: WEB,
    source: 'Gemini built-in',
    declaration: { urlContext: {} },
  },
};

const FORMATS = ['openai', 'openai-responses', 'anthropic', 'gemini', 'mcp'] as const;

describe('the constructors of provider-run tools', () => {
  it('cover every constructor in `builtin` that makes a BuiltinTool', () => {
    const made = Object.entries(builtin).flatMap(([provider, constructors]) =>
      Object.keys(constructors)
        .map((name) => `${provider}.${name}`)
        .filter((key) => !['anthropic.bash', 'anthropic.textEditor', 'anthropic.memory'].includes(key)),
    );
    expect(made.sort()).toEqual(Object.keys(cases).sort());
  });

  describe.each(Object.entries(cases))('%s', (_key, expected) => {
    it('makes the neutral definition with its default name, description, hints and declaration', () => {
      const tool = expected.make();
      expect(tool).toBeInstanceOf(BuiltinTool);
      expect(tool.format).toBe(expected.format);
      expect(tool.source).toBe(expected.source);
      expect(tool.definition).toEqual({
        name: expected.name,
        description: expected.description,
        parameters: { type: 'object', properties: {}, additionalProperties: true },
        ...(expected.annotations === undefined ? {} : { annotations: expected.annotations }),
        builtin: { runs: 'provider', declarations: { [expected.format]: expected.declaration } },
      });
    });

    it("lowers to its declaration in its provider's format and to a note in every other", () => {
      const toolset = new Toolset(expected.make());
      for (const format of FORMATS) {
        const { tools, notes } = toolset.lower(format);
        if (format === expected.format) {
          expect(tools).toEqual([expected.declaration]);
          expect(notes).toEqual([]);
        } else {
          expect(tools).toEqual([]);
          expect(notes).toEqual([{ tool: expected.name, path: '', action: 'dropped', detail: expect.stringContaining('built-in tool') }]);
        }
      }
    });

    it('takes a name and a description of your choosing in place of the defaults', () => {
      const key = _key.split('.') as [keyof typeof builtin, string];
      const constructors = builtin[key[0]] as Record<string, (options: object) => BuiltinTool>;
      const required: Record<string, object> = { 'openai.fileSearch': { vector_store_ids: ['vs_1'] }, 'openai.mcp': { server_label: 'docs' } };
      const tool = constructors[key[1]]!({ ...required[_key], name: 'mine', description: 'My search.' });
      expect(tool.definition).toMatchObject({ name: 'mine', description: 'My search.' });
      // The tool's own options never reach the provider's declaration.
      expect(JSON.stringify(tool.definition.builtin)).not.toMatch(/mine|My search/);
    });
  });

  it('refuse settings the provider cannot do without, with INVALID_TOOL_DEFINITION', () => {
    expect(() => builtin.openai.fileSearch({ vector_store_ids: 'vs_1' } as never)).toThrow(
      expect.objectContaining({
        code: ErrorCode.InvalidToolDefinition,
        message: expect.stringMatching(/^builtin\.openai\.fileSearch\(\): pass \{ vector_store_ids/),
      }),
    );
    expect(() => builtin.openai.mcp({ server_url: 'https://mcp.example.com/mcp' } as never)).toThrow(
      expect.objectContaining({ code: ErrorCode.InvalidToolDefinition, message: expect.stringMatching(/^builtin\.openai\.mcp\(\): pass \{ server_label/) }),
    );
  });
});
