// `npm start` is `npm run build && node <demo>`: `npm test` has just built
// everything, so this runs the demo command exactly as `npm start` would after
// its build, with no API key in the environment.
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

jest.setTimeout(60_000);

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

describe('npm start (the main demo)', () => {
  it('prints the transcript of a ScriptedModel run with local and MCP tools and exits 0 without any API key', async () => {
    const args = demoCommand();
    if (!existsSync(join(root, args[0]!))) throw new Error(`${args[0]} is missing: run \`npm run build\` (npm test does) before this test`);
    const env = { ...process.env };
    for (const key of ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'OPENAI_MODEL', 'ANTHROPIC_API_KEY', 'ANTHROPIC_MODEL']) delete env[key];

    const { code, stdout, stderr } = await run(args, env);
    expect({ code, stderr: code === 0 ? '' : stderr }).toEqual({ code: 0, stderr: '' });

    const lines = stdout.split('\n');
    expect(lines[0]).toMatch(/ScriptedModel/);
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
    expect(stdout).toMatch(/stopped: final_answer after 6 model turn\(s\) and 6 tool call\(s\)/);
  });
});
