// `npm start` is `npm run build && node <demo>`: `npm test` has just built
// everything, so this runs the demo command exactly as `npm start` would after
// its build, with no API key in the environment.
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startProviderServer, type ProviderServer } from '../../packages/agent/test/helpers/provider-server';
import { QUESTION } from '../../examples/agent/script';
import { scaled } from '../../packages/core/test/helpers/time-scale';

jest.setTimeout(scaled(60_000));

const root = join(__dirname, '..', '..');

function demoCommand(): string[] {
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  const start = manifest.scripts['start']!;
  const steps = start.split('&&').map((s) => s.trim());
  expect(steps[0]).toMatch(/^npm run build\b/);
  const command = steps[steps.length - 1]!.split(/\s+/);
  expect(command[0]).toBe('node');
  return command.slice(1);
}

function run(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, args, { cwd: root, env, timeout: 50_000 }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : null, stdout, stderr });
    });
  });
}

const KEYS = [
  'OPENAI_API_KEY',
  'OPENAI_BASE_URL',
  'OPENAI_MODEL',
  'ANTHROPIC_API_KEY',
  'ANTHROPIC_BASE_URL',
  'ANTHROPIC_MODEL',
  'GEMINI_API_KEY',
  'GOOGLE_API_KEY',
  'GEMINI_MODEL',
  'ANYTOOL_MODEL',
];

function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const key of KEYS) delete env[key];
  return { ...env, ...extra };
}

describe('npm start (the main demo)', () => {
  it('prints the transcript of a ScriptedModel run with local and MCP tools and exits 0 without any API key', async () => {
    const args = demoCommand();
    if (!existsSync(join(root, args[0]!))) throw new Error(`${args[0]} is missing: run \`npm run build\` (npm test does) before this test`);
    const { code, stdout, stderr } = await run(args, cleanEnv());
    expect({ code, stderr: code === 0 ? '' : stderr }).toEqual({ code: 0, stderr: '' });

    const lines = stdout.split('\n');
    expect(lines[0]).toMatch(/ScriptedModel/);
    expect(lines.some((line) => line.endsWith(`user: ${QUESTION}`))).toBe(true);
    expect(stdout).toMatch(/tools: .*get_weather \[TravelDesk\.getWeather\].*everything_get-sum \[mcp everything\]/);
    // Model turns, each call with its arguments and source, each result with its timing.
    expect(stdout).toMatch(/model turn 1 \(\d+ in \/ \d+ out tokens\), asks for 2 tool call\(s\)/);
    expect(stdout).toMatch(/-> get_weather \{"city":"Oslo"\}\s+\[TravelDesk\.getWeather\]/);
    expect(stdout).toMatch(/<- get_weather in [\d.]+ ms: \{"city":"Lisbon"/);
    expect(stdout).toMatch(/<- hotel_price in [\d.]+ ms: ERROR INVALID_ARGUMENTS/);
    expect(stdout).toMatch(/-> everything_get-sum \{"a":190,"b":45\}\s+\[mcp everything\]/);
    expect(stdout).toMatch(/<- everything_get-sum in [\d.]+ ms: The sum of 190 and 45 is 235\./);
    expect(stdout).toMatch(/approval for hold_room .*: approved/);
    expect(stdout).toMatch(/answer: Lisbon is the warmer choice.*235 EUR.*HOLD-LISBON-2N/);
    // The provider's built-in web search, replayed as its provider reports it, is in the transcript like any call.
    expect(stdout).toMatch(
      /-> openai_web_search \{"type":"search","query":"things to do this weekend in Oslo and Lisbon"\}\s+\[OpenAI \(Responses API\) built-in\]/,
    );
    // The provider ran it: no duration of ours, the model that reported it instead.
    expect(stdout).toMatch(/<- openai_web_search ran by scripted travel agent: Oslo: jazz festival/);
    expect(stdout).toMatch(/stopped: final_answer after 6 model turn\(s\) and 7 tool call\(s\)/);
    // The run's OpenTelemetry span tree: the agent over its model turns and tool calls, in one trace; the
    // built-in call under the model turn that reported it.
    expect(stdout).toMatch(
      /trace [0-9a-f]{32}: 15 spans\n {2}invoke_agent travel-desk +[\d.]+ ms\n {4}chat scripted travel agent +[\d.]+ ms\n {6}execute_tool openai_web_search +[\d.]+ ms\n {4}execute_tool get_weather /,
    );
    expect(stdout).toMatch(/\n {4}execute_tool hotel_price +[\d.]+ ms {2}error\.type=INVALID_ARGUMENTS\n/);
    // The MCP call under it, as its client sent it (its trace context went to the server in params._meta).
    expect(stdout).toMatch(/\n {4}execute_tool everything_get-sum +[\d.]+ ms\n {6}tools\/call get-sum +[\d.]+ ms\n/);
    // The plan as data (examples/agent/trip-plan.ts): schemaOf<TripPlan>(), its first answer repaired once.
    expect(stdout).toContain('structured answer (1 repair turn(s)): {"city":"Lisbon","totalEur":235,"holdReference":"HOLD-LISBON-2N","nights":2}');
    expect(stdout).toContain('tokens by model: {"scripted planner":{"inputTokens":20,"outputTokens":10,"totalTokens":30}}');
    // An agent used as a tool (examples/agent/researcher.ts): the forecaster's own calls, under the lead's call of it.
    expect(stdout).toMatch(
      /agent as a tool: lead -> forecaster\n {2}lead calls forecaster .*\n {4}forecaster calls get_weather \{"city":"Oslo"\}\n {4}forecaster calls get_weather \{"city":"Lisbon"\}\n {2}forecaster answers: Lisbon is warmer: 22 °C against 9 °C\.\n {2}lead: The forecaster says: Lisbon is warmer: 22 °C against 9 °C\. \(60 tokens, the forecaster's included\)\n/,
    );
  });

  describe('with a model server in the environment', () => {
    let server: ProviderServer | undefined;
    afterEach(async () => {
      await server?.close();
      server = undefined;
    });

    it('uses an OpenAI-compatible server from OPENAI_BASE_URL', async () => {
      const completion = (message: Record<string, unknown>, finish: string): unknown => ({
        id: 'chatcmpl-demo',
        object: 'chat.completion',
        created: 1_760_000_000,
        model: 'demo-model',
        choices: [{ index: 0, message: { role: 'assistant', content: null, refusal: null, ...message }, logprobs: null, finish_reason: finish }],
        usage: { prompt_tokens: 300, completion_tokens: 40, total_tokens: 340 },
      });
      server = await startProviderServer([
        {
          body: completion(
            {
              tool_calls: [
                { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } },
                { id: 'call_2', type: 'function', function: { name: 'everything_get-sum', arguments: '{"a":1,"b":2}' } },
              ],
            },
            'tool_calls',
          ),
        },
        { body: completion({ content: 'Oslo is cloudy; 1 + 2 = 3.' }, 'stop') },
        { body: completion({ content: '{"city":"Oslo","nights":1,"totalEur":3,"holdReference":null}' }, 'stop') },
      ]);
      const { code, stdout } = await run(demoCommand(), cleanEnv({ OPENAI_BASE_URL: `${server.url}/v1`, OPENAI_MODEL: 'demo-model' }));
      expect(code).toBe(0);
      expect(stdout.split('\n')[0]).toMatch(/^anytool demo on openai demo-model at http:\/\/127\.0\.0\.1/);
      expect(stdout).toMatch(/<- everything_get-sum in [\d.]+ ms: The sum of 1 and 2 is 3\./);
      expect(stdout).toMatch(/answer: Oslo is cloudy; 1 \+ 2 = 3\./);
      const tools = (server.requests[0]!.body['tools'] as Array<{ function: { name: string; strict: boolean } }>).map((t) => t.function.name);
      expect(tools).toEqual(['get_weather', 'hotel_price', 'hold_room', 'everything_echo', 'everything_get-sum']);
      // The plan: the schema of TripPlan as strict structured output, no tool call allowed; the strict null taken as absent.
      expect(server.requests[2]!.body).toMatchObject({ tool_choice: 'none', response_format: { type: 'json_schema', json_schema: { strict: true } } });
      expect(stdout).toContain('structured answer (0 repair turn(s)): {"city":"Oslo","nights":1,"totalEur":3}');
    });

    it('says plainly that the run failed when the model keeps failing, and exits 1', async () => {
      const overloaded = { status: 503, body: { error: { message: 'try later', type: 'server_error' } }, headers: { 'x-should-retry': 'false' } };
      server = await startProviderServer([overloaded]);
      const { code, stdout, stderr } = await run(demoCommand(), cleanEnv({ OPENAI_BASE_URL: `${server.url}/v1` }));
      expect(code).toBe(1);
      expect(stdout.split('\n')[0]).toMatch(/^anytool demo on openai gpt-4\.1-mini/);
      expect(stderr).toMatch(/the run failed: MODEL_FAILED: openai gpt-4\.1-mini: .*try later/);
    });

    it('uses Anthropic when ANTHROPIC_API_KEY is set', async () => {
      const message = (content: unknown[], stop: string): unknown => ({
        id: 'msg_demo',
        type: 'message',
        role: 'assistant',
        model: 'claude-demo',
        content,
        stop_reason: stop,
        stop_sequence: null,
        usage: { input_tokens: 300, output_tokens: 40 },
      });
      server = await startProviderServer([
        { body: message([{ type: 'tool_use', id: 'toolu_1', name: 'hotel_price', input: { city: 'Paris', nights: 3 } }], 'tool_use') },
        { body: message([{ type: 'text', text: 'Three nights in Paris cost 420 EUR.' }], 'end_turn') },
        { body: message([{ type: 'text', text: '{"city":"Paris","nights":3,"totalEur":420}' }], 'end_turn') },
      ]);
      const { code, stdout } = await run(
        demoCommand(),
        cleanEnv({ ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: server.url, ANTHROPIC_MODEL: 'claude-demo' }),
      );
      expect(code).toBe(0);
      expect(stdout.split('\n')[0]).toMatch(/^anytool demo on anthropic claude-demo/);
      expect(stdout).toMatch(/<- hotel_price in [\d.]+ ms: \{"city":"Paris","nights":3,"perNightEur":140,"totalEur":420\}/);
      expect(stdout).toMatch(/answer: Three nights in Paris cost 420 EUR\./);
      expect(server.requests[0]!.headers['x-api-key']).toBe('test-key');
      expect(server.requests[2]!.body).toMatchObject({ output_config: { format: { type: 'json_schema' } } });
      expect(stdout).toContain('structured answer (0 repair turn(s)): {"city":"Paris","nights":3,"totalEur":420}');
    });
  });
});
