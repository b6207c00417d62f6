import { BaseTool, ErrorCode, Tool, Toolset, defineTool, tool, toolsetFromModule, type ExecutionContext } from '@anytool/core';
import { loadToolModule } from '@anytool/core/internal';

class Clock {
  @Tool({ description: 'The time.', parameters: { type: 'object', properties: {} } })
  now(): string {
    return 'noon';
  }
}

class Echo extends BaseTool<{ text: string }> {
  constructor() {
    super({ name: 'echo', description: 'Echoes.', parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } });
  }

  execute(_context: ExecutionContext, { text }: { text: string }): string {
    return text;
  }
}

const add = tool(({ a, b }: { a: number; b: number }) => a + b, {
  name: 'add',
  description: 'Adds.',
  parameters: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
});

/** What `import()` of a CommonJS module gives: `default` is `module.exports`, plus the names Node detected (maybe none). */
function commonJsNamespace(exports: Record<string, unknown>, detected: readonly string[] = Object.keys(exports)): Record<string, unknown> {
  const namespace: Record<string, unknown> = { default: exports };
  for (const name of detected) namespace[name] = exports[name];
  return namespace;
}

describe('toolsetFromModule: what a module exports becomes a toolset', () => {
  it('takes tools, decorated instances and arrays, and skips everything else', () => {
    const toolset = toolsetFromModule({ clock: new Clock(), echo: new Echo(), more: [add], Clock, helper: () => 1, VERSION: '1.0', config: { a: 1 } });
    expect(toolset.names.sort()).toEqual(['add', 'echo', 'now']);
  });

  it('takes only the Toolsets when the module exports one (it usually holds the other exports)', () => {
    const echo = new Echo();
    const toolset = new Toolset(echo, add);
    expect(toolsetFromModule({ echo, add, toolset })).toBe(toolset);
  });

  it('takes only the named exports when asked', () => {
    expect(toolsetFromModule({ clock: new Clock(), echo: new Echo() }, { only: ['echo'] }).names).toEqual(['echo']);
  });

  it('reads a CommonJS module: module.exports under default, whether or not Node detected its names', () => {
    const echo = new Echo();
    const set = new Toolset(echo);
    // module.exports = { echo, set: new Toolset(echo) }: Node may detect both names, one, or none.
    for (const detected of [['echo', 'set'], ['echo'], []]) {
      expect(toolsetFromModule(commonJsNamespace({ echo, set }, detected))).toBe(set);
    }
    expect(toolsetFromModule(commonJsNamespace({ echo, clock: new Clock() }, [])).names.sort()).toEqual(['echo', 'now']);
    // --export names a property of module.exports that Node did not detect.
    expect(toolsetFromModule(commonJsNamespace({ echo, clock: new Clock() }, []), { only: ['clock'] }).names).toEqual(['now']);
  });

  it('reads TypeScript CommonJS output (exports.default beside __esModule) and module.exports that is itself the tools', () => {
    const set = new Toolset(add);
    expect(toolsetFromModule(commonJsNamespace({ __esModule: true, default: set }, ['__esModule', 'default']))).toBe(set);
    expect(toolsetFromModule({ default: set })).toBe(set);
    expect(toolsetFromModule({ default: new Clock() }).names).toEqual(['now']);
    expect(toolsetFromModule({ default: [add, new Echo()] }).names).toEqual(['add', 'echo']);
  });

  it('takes a Toolset from another copy of @anytool/core as a Toolset (only the Toolsets are taken)', () => {
    const held = new Toolset(add);
    // Another copy's Toolset is not an instance of this copy's class, but has its shape.
    const foreign = {
      tools: held.tools,
      subscribe: (l: () => void) => held.subscribe(l),
      invoke: held.invoke.bind(held),
      definitions: held.definitions.bind(held),
    };
    expect(toolsetFromModule({ add, foreign }).names).toEqual(['add']);
  });

  it('refuses a module with no tools, naming each export and what it is, and what counts as tools', () => {
    class Plain {}
    const call = (): Toolset =>
      toolsetFromModule({ Clock, Plain, helper: () => 1, VERSION: '1.0', config: { a: 1 }, list: [1], thing: new Plain() }, { label: 'tools.js' });
    expect(call).toThrow(expect.objectContaining({ code: ErrorCode.InvalidToolModule }));
    expect(call).toThrow(
      'tools.js exports no tools; it exports Clock (a class with @Tool methods: export an instance, new Clock(), not the class), Plain (a class with no @Tool methods), ' +
        'helper (a function: wrap it with tool() to make it a tool), VERSION (a string), config (a plain object), list (an array that is not all tools), thing (an instance of Plain with no @Tool methods); ' +
        'tools are tool() and defineTool() tools, BaseTool instances, instances of classes with @Tool methods (not the classes), arrays of them and Toolsets',
    );
    expect(() => toolsetFromModule({}, { label: 'empty.js' })).toThrow('empty.js exports no tools; it exports nothing;');
    expect(() => toolsetFromModule(commonJsNamespace({ helper: () => 1 }, []), { label: 'tools.cjs' })).toThrow(
      'tools.cjs exports no tools; it exports helper (a function',
    );
  });

  it('refuses a named export that is missing or holds no tools', () => {
    expect(() => toolsetFromModule({ echo: new Echo() }, { only: ['nope'], label: 'tools.js' })).toThrow(
      'tools.js has no export "nope"; it exports echo (a tool (echo))',
    );
    expect(() => toolsetFromModule({ Clock }, { only: ['Clock'], label: 'tools.js' })).toThrow(
      'export "Clock" of tools.js holds no tools: it is a class with @Tool methods: export an instance, new Clock(), not the class;',
    );
  });

  it('passes on a tool that is broken (no description), with its own message', () => {
    class Bare {
      run(): string {
        return '';
      }
    }
    defineTool(Bare, 'run', { parameters: { type: 'object', properties: {} } });
    expect(() => toolsetFromModule({ bare: new Bare() })).toThrow(expect.objectContaining({ code: ErrorCode.MissingDescription }));
  });
});

describe('loadToolModule', () => {
  it('names a missing file or a directory, before importing anything', async () => {
    await expect(loadToolModule('no/such/tools.js')).rejects.toThrow(
      expect.objectContaining({
        code: ErrorCode.InvalidToolModule,
        message: expect.stringMatching(/^cannot load no\/such\/tools\.js: there is no such file \(.*no\/such\/tools\.js\); check the path/),
      }),
    );
    await expect(loadToolModule(__dirname)).rejects.toThrow('it is a directory; name the JavaScript file that exports the tools');
  });
});
