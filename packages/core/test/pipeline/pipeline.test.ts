// The one call pipeline: middleware at toolset, source and tool level, its phases, its errors,
// and the pair of events every call leaves, whatever ended it.
import {
  ErrorCode,
  ExecutionContext,
  type BaseTool,
  Pipeline,
  Toolset,
  approval,
  errorResult,
  outputBudget,
  resultText,
  textResult,
  tool,
  type Middleware,
  type RunEvent,
  type ToolResult,
} from '@anytool/core';

const parameters = { type: 'object', properties: { n: { type: 'number' } } } as const;

/** A tool that logs its runs into `log` and answers with the n it got. */
function echo(name: string, log: string[]): BaseTool {
  return tool(
    ({ n }: { n?: number }) => {
      log.push(`${name} ran`);
      return `${name} ${n ?? '-'}`;
    },
    { name, description: `echo ${name}`, parameters },
  );
}

/** Middleware that logs each phase as `<label>.<hook>`. */
function logging(label: string, log: string[]): Middleware {
  return {
    name: label,
    before: () => void log.push(`${label}.before`),
    around: async (_call, next) => {
      log.push(`${label}.around>`);
      const result = await next();
      log.push(`${label}.around<`);
      return result;
    },
    after: () => void log.push(`${label}.after`),
  };
}

/** The tool_call / tool_result pairs of a run, as [type, callId] in order. */
const pairs = (events: readonly RunEvent[]): string[][] =>
  events.filter((e) => e.type === 'tool_call' || e.type === 'tool_result').map((e) => [e.type, (e as { callId: string }).callId]);

describe('middleware', () => {
  it('runs every before (outer first), the around wrappers (outer outside), the tool, every after (inner first), at toolset, source and tool level', async () => {
    const log: string[] = [];
    const add = echo('add', log).use(logging('tool', log));
    const source = new Toolset(add).use(logging('source', log));
    const toolset = new Toolset(source).use(logging('toolset', log));
    const result = await toolset.invoke('add', '{"n":2}');
    expect(resultText(result)).toBe('add 2');
    expect(log).toEqual([
      'toolset.before',
      'source.before',
      'tool.before',
      'toolset.around>',
      'source.around>',
      'tool.around>',
      'add ran',
      'tool.around<',
      'source.around<',
      'toolset.around<',
      'tool.after',
      'source.after',
      'toolset.after',
    ]);
  });

  it("a tool's own middleware runs however it is called, and middleware added later is picked up", async () => {
    const log: string[] = [];
    const add = echo('add', log);
    const toolset = new Toolset(add);
    await toolset.invoke('add', {});
    add.use({ name: 'late', before: () => void log.push('late') });
    await toolset.invoke('add', {});
    await add.invoke(new ExecutionContext(), {});
    expect(log).toEqual(['add ran', 'late', 'add ran', 'late', 'add ran']);
  });

  it('a before that returns a result ends the call there; the afters of the levels entered still see it; one pair of events', async () => {
    const log: string[] = [];
    const refusal = errorResult(ErrorCode.ApprovalDenied, 'no');
    const toolset = new Toolset(
      new Toolset(echo('add', log).use(logging('tool', log))).use({ name: 'guard', before: () => refusal, after: () => void log.push('guard.after') }),
    ).use(logging('toolset', log));
    const context = new ExecutionContext();
    const result = await toolset.invoke('add', {}, context, { callId: 'c1' });
    expect(result).toBe(refusal);
    expect(log).toEqual(['toolset.before', 'guard.after', 'toolset.after']);
    expect(pairs(context.events)).toEqual([
      ['tool_call', 'c1'],
      ['tool_result', 'c1'],
    ]);
  });

  it('an around may run the rest again (a retry): the tool runs twice, the call still has one pair of events', async () => {
    let runs = 0;
    const flaky = tool(() => (++runs === 1 ? Promise.reject(new Error('blip')) : 'ok'), { name: 'flaky', description: 'Fails once.', parameters });
    const retry: Middleware = {
      name: 'retry',
      around: async (_call, next) => {
        const first = await next();
        return first.isError ? next() : first;
      },
    };
    const context = new ExecutionContext();
    const result = await new Toolset(flaky).use(retry).invoke('flaky', {}, context);
    expect(resultText(result)).toBe('ok');
    expect(runs).toBe(2);
    expect(pairs(context.events)).toHaveLength(2);
  });

  it('an after may replace the result; hooks may be async; a before may change the arguments and the context the tool gets', async () => {
    const marker = new AbortController().signal;
    let seen: [string | undefined, boolean] | undefined;
    const peek = tool(
      ({ n }: { n: number }, context: ExecutionContext) => {
        seen = [context.callId, context.signal === marker];
        return n;
      },
      { name: 'peek', description: 'Returns n.', parameters: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] }, context: true },
    );
    const toolset = new Toolset(peek).use({
      name: 'rewrite',
      before: async (call) => {
        await Promise.resolve();
        call.args = { n: 41 };
        call.context = call.context.withSignal(marker);
      },
      after: async (_call, result) => textResult(`${resultText(result)}!`),
    });
    expect(resultText(await toolset.invoke('peek', { n: 1 }, new ExecutionContext(), { callId: 'x' }))).toBe('41!');
    expect(seen).toEqual(['x', true]);
  });

  const boom = (): never => {
    throw new Error('hook broke');
  };
  const failures: Array<{ name: string; middleware: Middleware; ran: boolean; says: string }> = [
    { name: 'a before that throws', middleware: { name: 'm', before: boom }, ran: false, says: 'hook broke' },
    { name: 'a before that rejects', middleware: { name: 'm', before: () => Promise.reject(new Error('hook broke')) }, ran: false, says: 'hook broke' },
    {
      name: 'a before that returns a non-result',
      middleware: { name: 'm', before: () => ({ nope: true }) as unknown as ToolResult },
      ran: false,
      says: 'not a ToolResult',
    },
    { name: 'an around that throws', middleware: { name: 'm', around: boom }, ran: false, says: 'hook broke' },
    {
      name: 'an around that returns undefined',
      middleware: { name: 'm', around: async (_c, next) => void (await next()) as unknown as ToolResult },
      ran: true,
      says: 'not a ToolResult',
    },
    { name: 'an after that throws', middleware: { name: 'm', after: boom }, ran: true, says: 'hook broke' },
    {
      name: 'an after that rejects with a revoked proxy',
      middleware: { name: 'm', after: () => Promise.reject(Proxy.revocable({}, {}).proxy) },
      ran: true,
      says: 'failed in middleware "m"',
    },
  ];

  it.each(failures)(
    '$name: the call ends with MIDDLEWARE_FAILED naming it, the outer after sees it, the pair of events is there',
    async ({ middleware, ran, says }) => {
      const log: string[] = [];
      let outerSaw: ToolResult | undefined;
      const toolset = new Toolset(new Toolset(echo('add', log)).use(middleware)).use({ name: 'outer', after: (_call, result) => void (outerSaw = result) });
      const context = new ExecutionContext();
      const result = await toolset.invoke('add', {}, context);
      expect(result.error?.code).toBe(ErrorCode.MiddlewareFailed);
      expect(`${resultText(result)}\n${result.error?.message}`).toContain(says);
      expect(resultText(result)).toContain('tool "add"');
      expect(outerSaw).toBe(result);
      expect(log).toEqual(ran ? ['add ran'] : []);
      expect(pairs(context.events).map(([type]) => type)).toEqual(['tool_call', 'tool_result']);
    },
  );

  it('calls to unknown names pass through the toolset middleware, with no tool', async () => {
    const seen: Array<[string, boolean]> = [];
    const toolset = new Toolset(echo('add', [])).use({ name: 'seer', after: (call) => void seen.push([call.name, call.tool === undefined]) });
    const result = await toolset.invoke('nope', {});
    expect(result.error?.code).toBe(ErrorCode.UnknownTool);
    expect(seen).toEqual([['nope', true]]);
  });

  it('refuses what is not middleware, with a coded error', () => {
    expect(() => new Toolset().use({} as Middleware)).toThrow(expect.objectContaining({ code: ErrorCode.InvalidOptions }));
    expect(() => new Toolset().use({ before: 'x' } as unknown as Middleware)).toThrow(/"before" is a string/);
    expect(() => echo('a', []).use(null as unknown as Middleware)).toThrow(expect.objectContaining({ code: ErrorCode.InvalidOptions }));
  });
});

describe('Pipeline', () => {
  it("runs a caller's middleware in front of a toolset it does not own; a refused call gets its pair of events there, a run one gets one pair", async () => {
    const log: string[] = [];
    const deleteFile = tool(() => void log.push('deleted'), { name: 'delete_file', description: 'Delete.', parameters, requiresApproval: true });
    const toolset = new Toolset(deleteFile, echo('add', log));
    const guarded = new Pipeline(approval({ approve: ({ args }) => (args as { n?: number }).n === 1 }));
    const context = new ExecutionContext();
    const refused = await guarded.invoke(toolset, 'delete_file', { n: 2 }, context, { callId: 'a' });
    const approved = await guarded.invoke(toolset, 'delete_file', { n: 1 }, context, { callId: 'b' });
    const free = await guarded.invoke(toolset, 'add', { n: 3 }, context, { callId: 'c' });
    expect(refused.error?.code).toBe(ErrorCode.ApprovalDenied);
    expect(approved.isError).toBe(false);
    expect(resultText(free)).toBe('add 3');
    expect(log).toEqual(['deleted', 'add ran']);
    expect(pairs(context.events)).toEqual([
      ['tool_call', 'a'],
      ['tool_result', 'a'],
      ['tool_call', 'b'],
      ['tool_result', 'b'],
      ['tool_call', 'c'],
      ['tool_result', 'c'],
    ]);
  });
});

describe('outputBudget', () => {
  const big = tool(() => 'x'.repeat(1000), { name: 'big', description: 'A long text.', parameters });

  it('cuts a result over its budget, says how much went, and leaves a diagnostic in the run', async () => {
    const context = new ExecutionContext();
    const result = await new Toolset(big).use(outputBudget({ maxChars: 500, over: 'truncate' })).invoke('big', {}, context);
    expect(result.content[0]).toEqual({ type: 'text', text: 'x'.repeat(50) });
    expect(resultText(result)).toContain('900 of 1,000 characters');
    expect(context.events.filter((e) => e.type === 'diagnostic')).toEqual([
      expect.objectContaining({ code: ErrorCode.ResultTooLarge, tool: 'big', source: 'output budget' }),
    ]);
  });

  it("with over: 'error' the model gets RESULT_TOO_LARGE instead; a result within the budget passes untouched", async () => {
    const toolset = new Toolset(big, echo('add', [])).use(outputBudget({ maxChars: 100, over: 'error' }));
    expect((await toolset.invoke('big', {})).error?.code).toBe(ErrorCode.ResultTooLarge);
    expect(resultText(await toolset.invoke('add', { n: 1 }))).toBe('add 1');
    expect(() => outputBudget({ maxChars: 0 })).toThrow(expect.objectContaining({ code: ErrorCode.InvalidOptions }));
  });
});

describe('approval on a toolset', () => {
  it('asks for destructive tools only, one question at a time, and a refusal never runs the tool', async () => {
    const ran: string[] = [];
    const drop = tool(() => void ran.push('drop'), { name: 'drop', description: 'Drop.', parameters, annotations: { destructive: true } });
    const read = tool(() => void ran.push('read'), { name: 'read', description: 'Read.', parameters, annotations: { readOnly: true } });
    let asking = 0;
    let most = 0;
    const toolset = new Toolset(drop, read).use(
      approval({
        approve: async () => {
          most = Math.max(most, ++asking);
          await new Promise((resolve) => setImmediate(resolve));
          asking--;
          return false;
        },
      }),
    );
    const context = new ExecutionContext();
    const results = await Promise.all([toolset.invoke('drop', {}, context), toolset.invoke('drop', {}, context), toolset.invoke('read', {}, context)]);
    expect(results.map((r) => r.error?.code)).toEqual([ErrorCode.ApprovalDenied, ErrorCode.ApprovalDenied, undefined]);
    expect(ran).toEqual(['read']);
    expect(most).toBe(1);
  });
});
