import { AnytoolError, BaseTool, ErrorCode, ExecutionContext, Tool, Toolset, defineTool, tool, toolsFrom } from '@anytool/core';

// Whether an MCP call of a tool may become a task (and be run again elsewhere): the same options on every
// way to make a tool.

const EMPTY = { type: 'object' as const, properties: {} };

class Jobs {
  @Tool({ description: 'Renders.', parameters: EMPTY, task: true })
  render(): string {
    return 'rendered';
  }

  @Tool({ description: 'Imports.', parameters: EMPTY, task: 'required', resumable: true, deferTask: true })
  import(): string {
    return 'imported';
  }

  @Tool({ description: 'Reads.', parameters: EMPTY })
  read(): string {
    return 'read';
  }

  later(): string {
    return 'later';
  }
}
defineTool(Jobs, 'later', { description: 'Later.', parameters: EMPTY, task: true });

class Backup extends BaseTool {
  constructor() {
    super({ name: 'backup', description: 'Backs up.', parameters: EMPTY, task: true, resumable: true });
  }
  execute(): string {
    return 'backed up';
  }
}

describe('task and resumable', () => {
  it('flow from @Tool, defineTool, tool() and BaseTool to the tool', () => {
    const toolset = new Toolset(
      new Jobs(),
      new Backup(),
      tool(() => 'hi', { name: 'hi', description: 'Says hi.', parameters: EMPTY, task: 'required' }),
    );
    expect(
      ['render', 'import', 'read', 'later', 'backup', 'hi'].map((name) => [
        name,
        toolset.get(name)!.task,
        toolset.get(name)!.resumable,
        toolset.get(name)!.deferTask,
      ]),
    ).toEqual([
      ['render', true, false, false],
      ['import', 'required', true, true],
      ['read', false, false, false],
      ['later', true, false, false],
      ['backup', true, true, false],
      ['hi', 'required', false, false],
    ]);
  });

  it('stay out of the definitions models see, and a direct call ignores them', async () => {
    const render = toolsFrom(new Jobs()).find((one) => one.name === 'render');
    expect(JSON.stringify(render!.definition)).not.toMatch(/task|resumable|defer/i);
    expect((await render!.invoke(new ExecutionContext(), {})).content).toEqual([{ type: 'text', text: 'rendered' }]);
  });

  it('refuse values that mean nothing, and resumable without task', () => {
    const cases: Array<[object, RegExp]> = [
      [{ task: 'yes' }, /task must be true, false or "required", got "yes"/],
      [{ task: true, resumable: 'yes' }, /resumable must be true or false/],
      [{ resumable: true }, /resumable applies to task tools: set task: true/],
      [{ task: true, deferTask: 1 }, /deferTask must be true or false, got 1/],
      [{ deferTask: true }, /deferTask applies to task tools: set task: true/],
    ];
    for (const [options, message] of cases) {
      let error: unknown;
      try {
        tool(() => 1, { name: 'bad', description: 'Bad.', parameters: EMPTY, ...options });
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(AnytoolError);
      expect((error as AnytoolError).code).toBe(ErrorCode.InvalidToolDefinition);
      expect((error as AnytoolError).message).toMatch(message);
    }
  });
});
