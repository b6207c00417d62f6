// The code runner (run_code): a program's calls go through the toolset's one call path (validation, middleware,
// approval, the tools' views of the context, events), what it prints and returns is the result, and its own
// failures are coded results.
import { ErrorCode, ExecutionContext, Pipeline, Toolset, approval, outputBudget, resultText, tool, type Middleware, type ToolResult } from '@anytool/core';
import { codeTool, DEFAULT_CODE_LIMITS, type CodeTool } from '@anytool/core/code-mode';
import { scaled } from '../helpers/time-scale';

jest.setTimeout(scaled(60_000));

const invoices = Array.from({ length: 120 }, (_, i) => ({ id: `inv${i}`, customer: `c${i % 30}`, amount: (i * 37) % 500, paid: i % 3 === 0 }));

function tools(sent: string[]) {
  return new Toolset(
    tool((args: { paid?: boolean }) => ({ invoices: invoices.filter((i) => args.paid === undefined || i.paid === args.paid) }), {
      name: 'list_invoices',
      description: 'Lists invoices.',
      parameters: { type: 'object', properties: { paid: { type: 'boolean' } } },
      outputSchema: { type: 'object', properties: { invoices: { type: 'array' } }, required: ['invoices'] },
    }),
    tool(
      (args: { to: string; body: string }) => {
        sent.push(`${args.to}: ${args.body}`);
        return `sent to ${args.to}`;
      },
      {
        name: 'send_email',
        description: 'Sends an email.',
        parameters: { type: 'object', properties: { to: { type: 'string' }, body: { type: 'string' } }, required: ['to', 'body'] },
      },
    ),
    tool((_args: object, context: ExecutionContext) => context.state.get('user') ?? 'nobody', {
      name: 'whoami',
      description: 'Who is asking.',
      parameters: { type: 'object', properties: {} },
      context: { state: { read: ['user'] } },
    }),
    tool((_args: object, context: ExecutionContext) => context.state.get('secret') ?? 'none', {
      name: 'peek',
      description: 'Reads a key it did not declare.',
      parameters: { type: 'object', properties: {} },
      context: true,
    }),
  );
}

const run = (runner: CodeTool, code: string, context = new ExecutionContext()): Promise<ToolResult> => runner.invoke(context, { code });

describe('codeTool', () => {
  let sent: string[];
  let toolset: Toolset;
  let runner: CodeTool;
  beforeEach(() => {
    sent = [];
    toolset = tools(sent);
    runner = codeTool(toolset);
  });
  afterEach(() => runner.dispose());

  it('runs a TypeScript program whose calls go through the toolset, and answers with what it printed and returned', async () => {
    const context = new ExecutionContext();
    const result = await run(
      runner,
      [
        'type Invoice = { id: string; customer: string; amount: number; paid: boolean };',
        'const { invoices } = (await tools.list_invoices({ paid: false })) as { invoices: Invoice[] };',
        'const owed = new Map<string, number>();',
        'for (const i of invoices) owed.set(i.customer, (owed.get(i.customer) ?? 0) + i.amount);',
        'const top = [...owed].sort((a, b) => b[1] - a[1]).slice(0, 2);',
        'await Promise.all(top.map(([c, n]) => tools.send_email({ to: c, body: `You owe ${n}` })));',
        "console.log('emailed', top.length);",
        'return top;',
      ].join('\n'),
      context,
    );
    const owed = new Map<string, number>();
    for (const i of invoices.filter((i) => !i.paid)) owed.set(i.customer, (owed.get(i.customer) ?? 0) + i.amount);
    const top = [...owed].sort((a, b) => b[1] - a[1]).slice(0, 2);
    expect(result.isError).toBe(false);
    expect(resultText(result)).toBe(`emailed 2\n${JSON.stringify(top)}`);
    expect(sent.sort()).toEqual(top.map(([c, n]) => `${c}: You owe ${n}`).sort());
    // Each call of the program is a call of the run, with its own id under the runner's.
    const calls = context.events.filter((e) => e.type === 'tool_call').map((e) => `${e.callId} ${e.tool}`);
    expect(calls).toEqual(['call_1 run_code', 'call_1/1 list_invoices', 'call_1/2 send_email', 'call_1/3 send_email']);
    expect(context.events.filter((e) => e.type === 'tool_result')).toHaveLength(4);
  });

  it('throws a failed call into the program as a ToolError with its code, which the program may catch', async () => {
    const result = await run(runner, 'try { await tools.send_email({ to: 5 }); } catch (e) { return [e.name, e.code, e.tool, e instanceof ToolError]; }');
    expect(JSON.parse(resultText(result))).toEqual(['ToolError', ErrorCode.InvalidArguments, 'send_email', true]);
    const uncaught = await run(runner, "await tools.send_email({ to: 'x' });");
    expect(uncaught.error?.code).toBe(ErrorCode.CodeFailed);
    expect(resultText(uncaught)).toContain('INVALID_ARGUMENTS');
  });

  it('gives each tool only its view of the context, as a direct call does', async () => {
    const context = new ExecutionContext();
    context.state.set('user', 'ada');
    context.state.set('secret', 's3');
    const result = await run(
      runner,
      'const who = await tools.whoami(); let peek; try { peek = await tools.peek(); } catch (e) { peek = e.code; } return [who, peek];',
      context,
    );
    expect(JSON.parse(resultText(result))).toEqual(['ada', ErrorCode.ContextAccessDenied]);
  });

  it("runs the toolset's middleware and budgets on each call of the program", async () => {
    const seen: string[] = [];
    const spy: Middleware = { name: 'spy', before: (call) => void seen.push(call.name) };
    toolset.use(spy, outputBudget({ maxChars: 500, over: 'error' }));
    const result = await run(runner, 'try { await tools.list_invoices(); } catch (e) { return e.code; }');
    expect(resultText(result)).toBe(ErrorCode.ResultTooLarge);
    expect(seen).toEqual(['list_invoices']);
  });

  it('sends the calls through the invoker it is given: an approval in front of the toolset refuses as for a direct call', async () => {
    const guarded = new Pipeline(approval({ approve: ({ tool }) => tool.name !== 'send_email' }));
    const needing = new Toolset(tools(sent));
    needing.get('send_email')!.requiresApproval = true;
    const gated = codeTool(needing, { invoke: (name, args, context, options) => guarded.invoke(needing, name, args, context, options) });
    const result = await run(gated, "try { await tools.send_email({ to: 'a', body: 'b' }); } catch (e) { return e.code; }");
    expect(resultText(result)).toBe(ErrorCode.ApprovalDenied);
    expect(sent).toEqual([]);
    gated.dispose();
  });

  it('ends with the pending code, saying so, when a call waits for a person and the run cannot pause', async () => {
    const guarded = new Pipeline(approval({ approve: 'pause' }));
    const needing = new Toolset(tools(sent));
    needing.get('send_email')!.requiresApproval = true;
    const gated = codeTool(needing, { invoke: (name, args, context, options) => guarded.invoke(needing, name, args, context, options) });
    const result = await run(
      gated,
      "console.log('before'); try { await tools.send_email({ to: 'a', body: 'b' }); } catch (e) { return 'caught'; } return 'after';",
    );
    expect(result.error?.code).toBe(ErrorCode.ApprovalPending);
    expect(resultText(result)).toContain('The program stopped at its call to "send_email"');
    expect(resultText(result)).toContain('before');
    expect(sent).toEqual([]);
    gated.dispose();
  });

  it('describes itself with the typed API, and follows the toolset when its tools change', () => {
    expect(runner.definition.name).toBe('run_code');
    expect(runner.definition.description).toContain('function list_invoices(args?: { paid?: boolean }): Promise<{ invoices: unknown[] }>;');
    expect(runner.definition.description).toContain(`${DEFAULT_CODE_LIMITS.maxToolCalls} tool calls`);
    toolset.add(tool(() => 1, { name: 'count', description: 'Counts.', parameters: { type: 'object', properties: {} } }));
    expect(runner.definition.description).toContain('function count(');
    expect(runner.codeApi().functions.map((f) => f.tool)).toContain('count');
  });

  it('reports a program that does not parse, with the line the model wrote', async () => {
    const result = await run(runner, 'const a = 1;\nconst b = ;\nreturn a;');
    expect(result.error?.code).toBe(ErrorCode.CodeFailed);
    expect(resultText(result)).toContain('(line 2)');
    const thrown = await run(runner, "const a = 1;\n\nthrow new Error('no ' + a);");
    expect(resultText(thrown)).toBe('The program threw (line 3): Error: no 1');
    const enumResult = await run(runner, 'enum E { A }\nreturn E.A;');
    expect(resultText(enumResult)).toContain('use plain objects instead of enums');
  });

  it('says so when the program neither prints nor returns', async () => {
    expect(resultText(await run(runner, 'const x = 1;'))).toBe('The program finished without printing or returning anything.');
  });

  it('refuses limits that are not whole numbers from 1', () => {
    expect(() => codeTool(toolset, { timeoutMs: 0 })).toThrow(expect.objectContaining({ code: ErrorCode.InvalidOptions }));
    expect(() => codeTool(toolset, { maxToolCalls: 1.5 })).toThrow(/maxToolCalls/);
    expect(() => codeTool({} as Toolset)).toThrow(/Toolset/);
  });
});
