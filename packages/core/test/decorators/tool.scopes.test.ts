import { AnytoolError, BaseTool, ErrorCode, ExecutionContext, Tool, Toolset, defineTool, tool, toolsFrom } from '@anytool/core';

// The scopes a tool asks of an authenticated MCP caller: the same option on every way to make a tool.

const EMPTY = { type: 'object' as const, properties: {} };

class Admin {
  @Tool({ description: 'Purges everything.', parameters: EMPTY, scopes: ['admin', 'notes:write'] })
  purge(): string {
    return 'purged';
  }

  @Tool({ description: 'Reads.', parameters: EMPTY })
  read(): string {
    return 'read';
  }

  later(): string {
    return 'later';
  }
}
defineTool(Admin, 'later', { description: 'Later.', parameters: EMPTY, scopes: ['later'] });

class Deploy extends BaseTool {
  constructor() {
    super({ name: 'deploy', description: 'Deploys.', parameters: EMPTY, scopes: ['deploy'] });
  }
  execute(): string {
    return 'deployed';
  }
}

describe('scopes', () => {
  it('flow from @Tool, defineTool, tool() and BaseTool to the tool', () => {
    const toolset = new Toolset(
      new Admin(),
      new Deploy(),
      tool(() => 'hi', { name: 'hi', description: 'Says hi.', parameters: EMPTY, scopes: ['greet'] }),
    );
    expect(toolset.get('purge')!.scopes).toEqual(['admin', 'notes:write']);
    expect(toolset.get('read')!.scopes).toBeUndefined();
    expect(toolset.get('later')!.scopes).toEqual(['later']);
    expect(toolset.get('deploy')!.scopes).toEqual(['deploy']);
    expect(toolset.get('hi')!.scopes).toEqual(['greet']);
  });

  it('stay out of the definitions models see, and a direct call ignores them', async () => {
    const [purge] = toolsFrom(new Admin());
    expect(JSON.stringify(purge!.definition)).not.toContain('notes:write');
    expect((await purge!.invoke(new ExecutionContext(), {})).isError).toBeFalsy();
  });

  it('must be OAuth scope names', () => {
    for (const bad of [['two words'], ['quo"te'], [''], 'admin']) {
      let error: unknown;
      try {
        tool(() => 1, { name: 'bad', description: 'Bad.', parameters: EMPTY, scopes: bad as string[] });
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(AnytoolError);
      expect((error as AnytoolError).code).toBe(ErrorCode.InvalidToolDefinition);
      expect((error as AnytoolError).message).toMatch(/^tool "bad" .*: scopes must be (OAuth scope names|an array of scope names)/);
    }
  });
});
