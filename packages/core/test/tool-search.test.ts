import { ErrorCode, ExecutionContext, Toolset, keywordRanker, resultText, tool, toolSearchFound, toolSearchTool, type ToolDefinition } from '@anytool/core';

const stub = (name: string, description: string, properties: Record<string, unknown> = {}) =>
  tool(() => `${name} ran`, { name, description, parameters: { type: 'object', properties } });

const catalog = [
  stub('github_create_issue', 'Create an issue in a GitHub repository.', { title: { type: 'string' }, body: { type: 'string' } }),
  stub('github_list_pull_requests', 'List open pull requests of a repository.', { state: { type: 'string' } }),
  stub('jira_create_ticket', 'Create a Jira work item in a project.', { project_key: { type: 'string' }, summary: { type: 'string' } }),
  stub('slack_post_message', 'Post a message in a Slack channel.', { channel: { type: 'string' }, text: { type: 'string' } }),
  stub('calendar_create_event', 'Create a calendar event with attendees.', { attendees: { type: 'array' }, start: { type: 'string' } }),
];
const definitions = (): ToolDefinition[] => catalog.map((t) => t.definition);

describe('keywordRanker', () => {
  it('ranks by name, description and parameter names, best first, and leaves out tools sharing no word', () => {
    expect(keywordRanker('post a slack message', definitions(), 5)).toEqual(['slack_post_message']);
    expect(keywordRanker('create ticket in jira', definitions(), 5)[0]).toBe('jira_create_ticket');
    // A parameter name is enough: "attendees" is only a parameter of the calendar tool.
    expect(keywordRanker('attendees', definitions(), 5)).toEqual(['calendar_create_event']);
    // camelCase and plurals meet snake_case and singulars.
    expect(keywordRanker('pullRequest', definitions(), 5)).toEqual(['github_list_pull_requests']);
    expect(keywordRanker('weather forecast', definitions(), 5)).toEqual([]);
  });

  it('puts a tool named exactly by the query first, and keeps to the limit', () => {
    expect(keywordRanker('slack_post_message', definitions(), 1)).toEqual(['slack_post_message']);
    expect(keywordRanker('create', definitions(), 2)).toHaveLength(2);
  });
});

describe('toolSearchTool', () => {
  const context = new ExecutionContext();

  it('searches only the deferred tools and names what it loaded in its structured value', async () => {
    const toolset = new Toolset(catalog[0]!).defer(catalog.slice(1));
    const search = toolSearchTool(toolset);
    expect(search.name).toBe('search_tools');
    expect(search.annotations).toEqual({ readOnly: true, idempotent: true });
    const found = await search.invoke(context, { query: 'create' });
    // github_create_issue is not deferred: the model sees it already.
    expect(toolSearchFound(found)).toEqual(['calendar_create_event', 'jira_create_ticket']);
    expect(resultText(found)).toBe(
      'Loaded 2 tool(s); call them by name:\n- calendar_create_event: Create a calendar event with attendees.\n- jira_create_ticket: Create a Jira work item in a project.',
    );
    const none = await search.invoke(context, { query: 'weather' });
    expect(toolSearchFound(none)).toEqual([]);
    expect(resultText(none)).toMatch(/^No tool matches "weather"/);
  });

  it('takes a ranker of your own, sync or async, and the limit the model asks for up to maxResults', async () => {
    const toolset = new Toolset().defer(catalog);
    const asked: Array<[string, number, number]> = [];
    const search = toolSearchTool(toolset, {
      name: 'find_tools',
      maxResults: 2,
      ranker: async (query, tools, limit) => {
        asked.push([query, tools.length, limit]);
        return tools.map((t) => t.name).reverse();
      },
    });
    expect(toolSearchFound(await search.invoke(context, { query: 'anything', limit: 10 }))).toEqual(['calendar_create_event', 'slack_post_message']);
    expect(toolSearchFound(await search.invoke(context, { query: 'x', limit: 1 }))).toEqual(['calendar_create_event']);
    expect(asked).toEqual([
      ['anything', 5, 2],
      ['x', 5, 1],
    ]);
  });

  it('answers an error result, never a wrong tool, when the ranker names a tool that is not deferred or throws', async () => {
    const toolset = new Toolset(catalog[0]!).defer(catalog[1]!);
    const liar = toolSearchTool(toolset, { ranker: () => ['github_create_issue'] });
    const lied = await liar.invoke(context, { query: 'x' });
    expect(lied.isError).toBe(true);
    expect(lied.error?.message).toMatch(/search_tools: the ranker returned names of no deferred tool \(github_create_issue\)/);
    expect(toolSearchFound(lied)).toEqual([]);
    const broken = toolSearchTool(toolset, {
      ranker: () => {
        throw new Error('index offline');
      },
    });
    const failed = await broken.invoke(context, { query: 'x' });
    expect(failed.error).toEqual({ code: ErrorCode.ToolFailed, message: 'search_tools: the ranker threw: index offline' });
  });

  it('refuses a bad maxResults or ranker when it is made', () => {
    expect(() => toolSearchTool(new Toolset(), { maxResults: 0 })).toThrow(expect.objectContaining({ code: ErrorCode.InvalidOptions }));
    expect(() => toolSearchTool(new Toolset(), { ranker: 'bm25' as never })).toThrow(expect.objectContaining({ code: ErrorCode.InvalidOptions }));
  });

  it('checks the arguments like any tool: a call without a query never ranks', async () => {
    let ranked = 0;
    const search = toolSearchTool(new Toolset().defer(catalog), { ranker: () => (ranked++, []) });
    const result = await search.invoke(context, {});
    expect(result.isError).toBe(true);
    expect(result.error?.code).toBe(ErrorCode.InvalidArguments);
    expect(ranked).toBe(0);
  });
});
