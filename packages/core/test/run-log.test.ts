import { ErrorCode, ExecutionContext, Toolset, isAnytoolError, resultText, tool, type RunEvent, type RunMessageEvent, type ToolCallEvent } from '@anytool/core';

/** Records `count` user messages "0", "1"... (from `from`). */
function recordMessages(context: ExecutionContext, count: number, from = 0): void {
  for (let i = from; i < from + count; i++) context.record({ type: 'message', role: 'user', text: String(i) });
}

const texts = (events: readonly RunEvent[]): string[] => events.map((e) => (e as RunMessageEvent).text);
const range = (from: number, to: number): string[] => Array.from({ length: to - from }, (_, i) => String(from + i));

const noArgs = { type: 'object', properties: {} } as const;

describe("a run's log keeps its last keepEvents events", () => {
  it('keeps 10,000 by default: every event of an ordinary run, then the last 10,000 in order, counting the dropped ones', () => {
    expect(ExecutionContext.DEFAULT_KEEP_EVENTS).toBe(10_000);
    const context = new ExecutionContext();
    recordMessages(context, 10_000);
    expect(context.events).toHaveLength(10_000);
    expect(context.droppedEvents).toBe(0);
    recordMessages(context, 2_500, 10_000);
    expect(context.events).toHaveLength(10_000);
    expect(context.droppedEvents).toBe(2_500);
    expect(texts(context.events)).toEqual(range(2_500, 12_500));
  });

  it('keeps the order as the ring wraps, read after every event', () => {
    const context = new ExecutionContext({ keepEvents: 3 });
    for (let i = 0; i < 10; i++) {
      recordMessages(context, 1, i);
      expect(texts(context.events)).toEqual(range(Math.max(0, i - 2), i + 1));
      expect(context.droppedEvents).toBe(Math.max(0, i - 2));
    }
  });

  it('tells listeners of every event, the dropped ones included, in order', () => {
    const context = new ExecutionContext({ keepEvents: 5 });
    const heard: RunEvent[] = [];
    context.subscribe((event) => heard.push(event));
    recordMessages(context, 40);
    expect(texts(heard)).toEqual(range(0, 40));
    expect(texts(context.events)).toEqual(range(35, 40));
    // The kept events are the very ones listeners were told of.
    expect(context.events[0]).toBe(heard[35]);
  });

  it("drops whole events in the order they were recorded: a tool call's pair stays in order", async () => {
    const add = tool(({ a, b }: { a: number; b: number }) => a + b, {
      name: 'add',
      description: 'Adds.',
      parameters: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
    });
    const toolset = new Toolset(add);
    const context = new ExecutionContext({ keepEvents: 50 });
    for (let i = 0; i < 100; i++) await toolset.invoke('add', { a: i, b: 1 }, context, { callId: `c${i}` });
    expect(context.droppedEvents).toBe(150);
    const kept = context.events;
    expect(kept.map((e) => e.type)).toEqual(Array.from({ length: 50 }, (_, i) => (i % 2 === 0 ? 'tool_call' : 'tool_result')));
    expect(kept.map((e) => (e as ToolCallEvent).callId)).toEqual(Array.from({ length: 50 }, (_, i) => `c${75 + Math.floor(i / 2)}`));
    const last = kept.at(-1)!;
    expect(last.type === 'tool_result' && resultText(last.result)).toBe('100');
  });

  it("keeps every event with keepEvents: 'all'", () => {
    const context = new ExecutionContext({ keepEvents: 'all' });
    recordMessages(context, ExecutionContext.DEFAULT_KEEP_EVENTS + 2_000);
    expect(context.events).toHaveLength(ExecutionContext.DEFAULT_KEEP_EVENTS + 2_000);
    expect(context.droppedEvents).toBe(0);
    expect(context.events[0]).toMatchObject({ text: '0' });
  });

  it('keeps none with keepEvents: 0, and still tells listeners', () => {
    const context = new ExecutionContext({ keepEvents: 0 });
    const heard: RunEvent[] = [];
    context.subscribe((event) => heard.push(event));
    recordMessages(context, 3);
    expect(context.events).toEqual([]);
    expect(context.droppedEvents).toBe(3);
    expect(texts(heard)).toEqual(['0', '1', '2']);
  });

  it('leaves an array read before the first drop as it was, in order; reads after a drop are frozen copies', () => {
    const context = new ExecutionContext({ keepEvents: 4 });
    recordMessages(context, 2);
    const early = context.events;
    recordMessages(context, 2, 2);
    // Before any drop the log is the array readers hold: it grows as events come.
    expect(texts(early)).toEqual(['0', '1', '2', '3']);
    recordMessages(context, 3, 4);
    expect(texts(early)).toEqual(['0', '1', '2', '3']);
    const now = context.events;
    expect(texts(now)).toEqual(['3', '4', '5', '6']);
    expect(Object.isFrozen(now)).toBe(true);
    expect(context.events).toBe(now);
    recordMessages(context, 1, 7);
    expect(texts(now)).toEqual(['3', '4', '5', '6']);
    expect(texts(context.events)).toEqual(['4', '5', '6', '7']);
  });

  it("is the same log in every view of the run; a tool's view reads it (and the dropped count) only with events: 'read'", async () => {
    const context = new ExecutionContext({ keepEvents: 4 });
    recordMessages(context, 6);
    const seen: { texts: string[]; dropped: number }[] = [];
    const reader = tool(
      (_: Record<string, never>, view: ExecutionContext) => {
        seen.push({ texts: view.events.map((e) => (e.type === 'message' ? e.text : e.type)), dropped: view.droppedEvents });
        return 'read';
      },
      { name: 'reader', description: 'Reads the log.', parameters: noArgs, context: { events: 'read' } },
    );
    const blind = tool((_: Record<string, never>, view: ExecutionContext) => view.droppedEvents, {
      name: 'blind',
      description: 'Reads the dropped count without declaring it.',
      parameters: noArgs,
      context: { progress: true },
    });
    const toolset = new Toolset(reader, blind);
    await toolset.invoke('reader', {}, context.withSignal(new AbortController().signal));
    // The call's own tool_call event is recorded before the tool runs.
    expect(seen).toEqual([{ texts: ['3', '4', '5', 'tool_call'], dropped: 3 }]);
    const denied = await toolset.invoke('blind', {}, context);
    expect(denied.error?.code).toBe(ErrorCode.ContextAccessDenied);
    expect(resultText(denied)).toContain('droppedEvents');
  });

  it.each([[-1], [1.5], [Number.NaN], [Infinity], ['some'], [null]])('refuses keepEvents %p with INVALID_OPTIONS naming the option', (keepEvents) => {
    let thrown: unknown;
    try {
      new ExecutionContext({ keepEvents: keepEvents as number });
    } catch (error) {
      thrown = error;
    }
    expect(isAnytoolError(thrown) && thrown.code).toBe(ErrorCode.InvalidOptions);
    expect((thrown as Error).message).toMatch(/keepEvents must be a whole number of events from 0 .* or 'all'/);
  });
});
