// Two copies of @anytool/core, as a user's project can end up with (two installed versions,
// or the ES and CommonJS builds side by side): tools made with one copy are taken by the
// agent, by serveMcp and by `anytool serve`, which all run on the other. The second copy is
// the built package copied to a scratch project's node_modules.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type * as core from '@anytool/core';
import { BaseTool, ErrorCode, ExecutionContext, Toolset, resultText, tool } from '@anytool/core';
import { Agent, ScriptedModel, latestToolResults } from '@anytool/agent';
import { McpToolset, serveMcp } from '@anytool/mcp';
import { scaled } from '../../packages/core/test/helpers/time-scale';

jest.setTimeout(scaled(60_000));

const root = join(__dirname, '..', '..');
const anytool = join(root, 'packages', 'schema', 'bin', 'anytool.mjs');
let project: string;
let other: typeof core;

const parameters = { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] } as const;

beforeAll(() => {
  for (const name of ['core', 'schema', 'mcp']) {
    if (!existsSync(join(root, 'packages', name, 'dist', 'esm', 'index.js')))
      execFileSync(process.execPath, [join(root, 'scripts', 'build.mjs'), name], { cwd: root, stdio: 'pipe' });
  }
  // Inside the repository, so the copy resolves core's own dependencies (ajv) from its node_modules.
  mkdirSync(join(root, '.tmp'), { recursive: true });
  project = mkdtempSync(join(root, '.tmp', 'two-copies-'));
  const copy = join(project, 'node_modules', '@anytool', 'core');
  mkdirSync(copy, { recursive: true });
  cpSync(join(root, 'packages', 'core', 'package.json'), join(copy, 'package.json'));
  cpSync(join(root, 'packages', 'core', 'dist'), join(copy, 'dist'), { recursive: true });
  writeFileSync(join(project, 'package.json'), '{ "type": "module" }\n');
  writeFileSync(
    join(project, 'tools.js'),
    `import { Toolset, defineTool, tool } from '@anytool/core';
export const add = tool((a, b) => a + b, { name: 'add', description: 'Add two numbers.' }, { parameters: ${JSON.stringify(parameters)}, paramNames: ['a', 'b'] });
export class Greeter {
  greet({ name }) {
    return 'hello ' + name;
  }
}
defineTool(Greeter, 'greet', { description: 'Greet someone.', parameters: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } });
export const greeter = new Greeter();
export const toolset = new Toolset(add, greeter);
`,
  );
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- the copy is loaded by path, as its own module graph
  other = require(join(copy, 'dist', 'cjs', 'index.js')) as typeof core;
  expect(other.BaseTool).not.toBe(BaseTool);
}, scaled(120_000));

afterAll(() => rmSync(project, { recursive: true, force: true }));

describe('tools of another copy of @anytool/core', () => {
  it('an Agent runs them, given as tools or as a Toolset of that copy', async () => {
    const add = other.tool((a: number, b: number) => a + b, { name: 'add', description: 'Add two numbers.' }, { parameters, paramNames: ['a', 'b'] });
    for (const tools of [[add], new other.Toolset(add)]) {
      const model = new ScriptedModel([
        {
          toolCalls: [
            { name: 'add', arguments: { a: 17, b: 25 } },
            { name: 'add', arguments: { a: 'x' } },
          ],
        },
        (request) => ({
          text: latestToolResults(request)
            .map((m) => resultText(m.result).split('\n')[0])
            .join(' | '),
        }),
      ]);
      const agent = new Agent({ model, tools: tools as core.ToolSource });
      const result = await agent.run('add');
      expect(result.text).toBe('42 | Invalid arguments for tool "add":');
    }
  });

  it("an async call of one copy's tool, through the other's Toolset and on a run with a signal, leaves one tool_result", async () => {
    const asyncAdd = other.tool(
      async (a: number, b: number) => a + b,
      { name: 'add', description: 'Add two numbers.' },
      { parameters, paramNames: ['a', 'b'] },
    );
    const toolsets = [
      { toolset: new Toolset(asyncAdd), context: () => new other.ExecutionContext({ signal: new AbortController().signal }) },
      {
        toolset: new other.Toolset(tool(async ({ a, b }: { a: number; b: number }) => a + b, { name: 'add', description: 'Add.', parameters })),
        context: () => new ExecutionContext({ signal: new AbortController().signal }),
      },
    ];
    for (const { toolset, context: make } of toolsets) {
      const context = make() as ExecutionContext;
      const result = await toolset.invoke('add', '{"a":17,"b":25}', context);
      expect(resultText(result)).toBe('42');
      await new Promise((resolve) => setImmediate(resolve));
      expect(context.events.map((e) => e.type)).toEqual(['tool_call', 'tool_result']);
    }
  });

  it('serveMcp serves them over HTTP, and the MCP client of this copy calls them', async () => {
    const add = other.tool((a: number, b: number) => a + b, { name: 'add', description: 'Add two numbers.' }, { parameters, paramNames: ['a', 'b'] });
    const server = await serveMcp(new other.Toolset(add) as unknown as Toolset, { transport: 'http', port: 0 });
    try {
      const mcp = await McpToolset.connect({ mcpServers: { copy: { url: server.url! } } });
      try {
        const toolset = new Toolset(mcp);
        expect(toolset.names).toEqual(['add']);
        expect(resultText(await toolset.invoke('add', { a: 2, b: 3 }))).toBe('5');
        expect((await toolset.invoke('add', { a: 2 })).isError).toBe(true);
      } finally {
        await mcp.close();
      }
    } finally {
      await server.close();
    }
  });

  it('anytool serve serves a module whose tools come from its own copy', async () => {
    const served = join(project, 'tools.js');
    for (const only of [['--export', 'add', '--export', 'greeter'], []]) {
      const mcp = await McpToolset.connect({ mcpServers: { copy: { command: process.execPath, args: [anytool, 'serve', served, ...only], cwd: project } } });
      try {
        const toolset = new Toolset(mcp);
        expect(toolset.names.sort()).toEqual(['add', 'greet']);
        expect(resultText(await toolset.invoke('add', { a: 20, b: 22 }))).toBe('42');
        expect(resultText(await toolset.invoke('greet', { name: 'Ada' }))).toBe('hello Ada');
        expect((await toolset.invoke('add', { a: 'x' })).error?.code).toBe(ErrorCode.InvalidArguments);
      } finally {
        await mcp.close();
      }
    }
  });
});
