// examples/from-ai-sdk and examples/from-openai-agents: tools written for another SDK,
// ported by changing the import. The tools as a toolset holds them, the built examples
// as Node runs them, and the READMEs' diffs against the files.
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ErrorCode, Toolset, resultText } from '@anytool/core';
import { convertFahrenheitToCelsius, weather } from '../../examples/from-ai-sdk/tools';
import { convertCurrency, getWeather } from '../../examples/from-openai-agents/tools';
import { scaled } from '../../packages/core/test/helpers/time-scale';

jest.setTimeout(scaled(60_000));

const root = join(__dirname, '..', '..');

function runExample(name: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const main = join(root, 'examples', 'dist', name, 'main.js');
  if (!existsSync(main)) throw new Error(`${main} is missing: run \`npm run build\` (npm test does) before this test`);
  return new Promise((resolve) => {
    execFile(process.execPath, [main], { cwd: root, timeout: 50_000 }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : null, stdout, stderr });
    });
  });
}

/** Whether every non-empty line of `lines` is a line of `source`, in this order (the diff leaves out what it does not change). */
function inOrder(source: string, lines: string[]): boolean {
  const sourceLines = source.split('\n');
  let at = 0;
  for (const line of lines.filter((l) => l.trim() !== '')) {
    at = sourceLines.indexOf(line, at);
    if (at < 0) return false;
    at++;
  }
  return true;
}

/** The README's diff: the file before (context and - lines) and after (context and + lines). */
function diffOf(example: string): { before: string[]; after: string[] } {
  const readme = readFileSync(join(root, 'examples', example, 'README.md'), 'utf8');
  // An empty line in the block is an empty context line.
  const block = /```diff\n([\s\S]*?)\n```/
    .exec(readme)![1]!
    .split('\n')
    .map((line) => (line === '' ? ' ' : line));
  return {
    before: block.filter((line) => !line.startsWith('+')).map((line) => line.slice(1)),
    after: block.filter((line) => !line.startsWith('-')).map((line) => line.slice(1)),
  };
}

describe('examples/from-ai-sdk', () => {
  const toolset = new Toolset(weather, convertFahrenheitToCelsius);

  test('the definitions come from the zod schemas, in every format', () => {
    const [openai] = toolset.definitions('openai');
    expect(openai).toEqual({
      type: 'function',
      function: {
        name: 'weather',
        description: 'Get the weather in a location (fahrenheit)',
        parameters: {
          type: 'object',
          properties: { location: { type: 'string', description: 'The location to get the weather for' } },
          required: ['location'],
          additionalProperties: false,
        },
        strict: true,
      },
    });
    expect(toolset.definitions('anthropic')[1]).toMatchObject({
      name: 'convertFahrenheitToCelsius',
      input_schema: { properties: { temperature: { type: 'number' } }, required: ['temperature'] },
    });
    expect(toolset.definitions('gemini').map((d) => d.name)).toEqual(['weather', 'convertFahrenheitToCelsius']);
  });

  test('a call runs execute with the validated arguments; a bad one is refused with its path', async () => {
    const result = await toolset.invoke('weather', '{"location":"Oslo"}');
    expect(result.structured).toEqual({ location: 'Oslo', temperature: expect.any(Number) });
    expect((await toolset.invoke('convertFahrenheitToCelsius', '{"temperature":212}')).structured).toEqual({ celsius: 100 });
    const refused = await toolset.invoke('convertFahrenheitToCelsius', '{"temperature":"hot"}');
    expect(refused.error?.code).toBe(ErrorCode.InvalidArguments);
    expect(resultText(refused)).toMatch(/^- \/temperature: /m);
  });

  test('runs under Node after the build', async () => {
    const { code, stdout, stderr } = await runExample('from-ai-sdk');
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(stdout).toMatch(/"name": "weather"/);
    expect(stdout).toMatch(/^convertFahrenheitToCelsius\(\{"temperature":72\}\) -> \{"celsius":22\}$/m);
    expect(stdout).toMatch(/^convertFahrenheitToCelsius\(\{"temperature":"hot"\}\) -> ERROR INVALID_ARGUMENTS/m);
  });

  test("the README's diff: the import and the name line", () => {
    const { before, after } = diffOf('from-ai-sdk');
    const source = readFileSync(join(root, 'examples', 'from-ai-sdk', 'tools.ts'), 'utf8');
    expect(inOrder(source, after)).toBe(true);
    expect(before[0]).toBe("import { tool } from 'ai';");
    expect(after.filter((line) => !before.includes(line))).toEqual(["import { tool } from '@anytool/core';", "  name: 'weather',"]);
  });
});

describe('examples/from-openai-agents', () => {
  const toolset = new Toolset(getWeather, convertCurrency);

  test('the definitions come from the zod schemas', () => {
    const [, convert] = toolset.definitions('openai-responses');
    expect(convert).toMatchObject({ type: 'function', name: 'convert_currency', strict: true });
    expect(convert!.parameters).toMatchObject({
      properties: { amount: { type: 'number', exclusiveMinimum: 0 }, from: { enum: ['USD', 'EUR', 'GBP', 'JPY'] }, note: { type: ['string', 'null'] } },
      required: ['amount', 'from', 'to', 'note'],
      additionalProperties: false,
    });
    expect(toolset.definitions('mcp')[0]).toMatchObject({ name: 'get_weather', inputSchema: { type: 'object', required: ['city'] } });
  });

  test('a call runs execute; a bad one is refused with its paths', async () => {
    expect(resultText(await toolset.invoke('get_weather', '{"city":"Tokyo"}'))).toBe('The weather in Tokyo is sunny.');
    expect((await toolset.invoke('convert_currency', '{"amount":10,"from":"EUR","to":"EUR","note":"same"}')).structured).toEqual({
      amount: 10,
      currency: 'EUR',
      note: 'same',
    });
    const refused = await toolset.invoke('convert_currency', '{"amount":-5,"from":"USD","to":"XYZ","note":null}');
    expect(refused.error?.code).toBe(ErrorCode.InvalidArguments);
    expect(resultText(refused)).toMatch(/^- \/amount: [\s\S]*^- \/to: /m);
  });

  test('runs under Node after the build', async () => {
    const { code, stdout, stderr } = await runExample('from-openai-agents');
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(stdout).toMatch(/"name": "convert_currency"/);
    expect(stdout).toMatch(/^get_weather\(\{"city":"Tokyo"\}\) -> The weather in Tokyo is sunny\.$/m);
    expect(stdout).toMatch(/-> \{"amount":92,"currency":"EUR"\}$/m);
  });

  test("the README's diff: only the import", () => {
    const { before, after } = diffOf('from-openai-agents');
    const source = readFileSync(join(root, 'examples', 'from-openai-agents', 'tools.ts'), 'utf8');
    expect(inOrder(source, after)).toBe(true);
    expect(before[0]).toBe("import { tool } from '@openai/agents';");
    expect(after.filter((line) => !before.includes(line))).toEqual(["import { tool } from '@anytool/core';"]);
  });
});
