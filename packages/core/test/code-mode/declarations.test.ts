// The typed API of a toolset (Toolset.codeApi): what the declarations say for each kind of schema, how tools are
// grouped (local tools, one namespace per MCP server), and that tsc accepts them and checks calls against them.
import ts from 'typescript';
import { Toolset, builtin, tool, type JsonSchema, type ToolOrigin } from '@anytool/core';
import { schemaType } from '@anytool/core/code-mode';
import { scaled } from '../helpers/time-scale';

const open = (properties: Record<string, unknown>, required: string[] = []): JsonSchema => ({ type: 'object', properties, required });

function remote(server: string, name: string, parameters: JsonSchema, outputSchema?: JsonSchema) {
  const origin: ToolOrigin = { protocol: 'mcp', server, trusted: true };
  return tool(() => ({}), { name, description: `${name} on ${server}.`, parameters, origin, ...(outputSchema === undefined ? {} : { outputSchema }) });
}

const customerSchema: JsonSchema = {
  type: 'object',
  properties: {
    region: { type: 'string', enum: ['EU', 'US'], description: 'Where the customers live.' },
    limit: { type: 'integer', minimum: 1 },
    'created-after': { type: ['string', 'null'], format: 'date' },
  },
  required: ['region'],
};
const customerOutput: JsonSchema = {
  type: 'object',
  properties: {
    customers: { type: 'array', items: { $ref: '#/$defs/Customer' } },
  },
  required: ['customers'],
  $defs: {
    Customer: {
      type: 'object',
      properties: { id: { type: 'string' }, unpaid: { type: 'number' }, tags: { type: 'array', items: { type: 'string' } } },
      required: ['id', 'unpaid'],
    },
  },
};

function toolset(): Toolset {
  return new Toolset(
    tool(() => [], { name: 'list_customers', description: 'Lists customers.\nOne page at a time.', parameters: customerSchema, outputSchema: customerOutput }),
    tool(() => 'ok', {
      name: 'send-email',
      description: 'Sends an email. */ not the end',
      parameters: open({ to: { type: 'string' }, body: { type: 'string' } }, ['to', 'body']),
      annotations: { destructive: true },
    }),
    tool(() => 1, {
      name: 'tagged',
      description: 'Unions, tuples, consts and maps.',
      parameters: {
        ...open({
          kind: { anyOf: [{ const: 'a' }, { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] }] },
          pair: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }] },
          scores: { type: 'object', additionalProperties: { type: 'number' } },
          both: { allOf: [open({ a: { type: 'string' } }, ['a']), open({ b: { type: 'boolean' } }, ['b'])] },
          anything: {},
          node: { $ref: '#/$defs/Node' },
        }),
        $defs: { Node: { type: 'object', properties: { label: { type: 'string' }, child: { $ref: '#/$defs/Node' } }, required: ['label'] } },
      },
    }),
    remote('billing', 'billing_list_invoices', open({ status: { type: 'string', enum: ['paid', 'unpaid'] } }), {
      type: 'object',
      properties: { invoices: { type: 'array', items: { $ref: '#/$defs/Customer' } } },
      $defs: {
        Customer: {
          type: 'object',
          properties: { id: { type: 'string' }, unpaid: { type: 'number' }, tags: { type: 'array', items: { type: 'string' } } },
          required: ['id', 'unpaid'],
        },
      },
    }),
    remote('mail-server', 'send', open({ to: { type: 'string' } }, ['to'])),
    builtin.openai.webSearch(),
  );
}

/** The diagnostics tsc reports for the declarations and a program using them (strict). */
function typeCheck(declarations: string, program: string): string[] {
  // As the runner runs it: the body of an async function.
  const files: Record<string, string> = { 'api.d.ts': declarations, 'program.ts': `export {};\nvoid (async () => { ${program}\n})();` };
  const options: ts.CompilerOptions = { strict: true, noEmit: true, target: ts.ScriptTarget.ES2022, lib: ['lib.es2022.d.ts'], types: [] };
  const host = ts.createCompilerHost(options);
  const read = host.readFile.bind(host);
  const exists = host.fileExists.bind(host);
  host.readFile = (name) => files[name] ?? read(name);
  host.fileExists = (name) => name in files || exists(name);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (name, version) => (name in files ? ts.createSourceFile(name, files[name]!, version) : getSourceFile(name, version));
  const program_ = ts.createProgram(Object.keys(files), options, host);
  return ts.getPreEmitDiagnostics(program_).map((d) => `${d.file?.fileName ?? ''}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
}

describe('Toolset.codeApi()', () => {
  it('declares each tool as an async function with its argument and result types, grouped by source', () => {
    const { declarations, functions } = toolset().codeApi();
    expect(declarations).toContain('declare namespace tools {');
    expect(declarations).toContain('/** Tools of the MCP server "billing". */\ndeclare namespace billing {');
    // A server name that is no identifier becomes one.
    expect(declarations).toContain('declare namespace mail_server {');
    expect(declarations).toContain(
      [
        '/**',
        ' * Lists customers.',
        ' * One page at a time.',
        ' */',
        'function list_customers(args: {',
        ' region: "EU" | "US" // Where the customers live.',
        ' limit?: number',
        ' "created-after"?: string | null',
        '}): Promise<{ customers: Customer[] }>;',
      ].join('\n'),
    );
    expect(declarations).toContain('type Customer = { id: string; unpaid: number; tags?: string[] };');
    // A one-line description is a line comment; a destructive tool says so.
    expect(declarations).toContain('// Sends an email. */ not the end (destructive)\n');
    expect(declarations).toContain('function send_email(args: { to: string; body: string }): Promise<unknown>;');
    expect(declarations).toContain('kind?: "a" | { n: number }');
    expect(declarations).toContain('pair?: [string, number]');
    expect(declarations).toContain('scores?: Record<string, number>');
    expect(declarations).toContain('both?: { a: string } & { b: boolean }');
    expect(declarations).toContain('anything?: unknown');
    expect(declarations).toContain('type Node = { label: string; child?: Node };');
    // A comment in a multi-line description cannot end its JSDoc early, nor a line separator its line comment.
    const tricky = new Toolset(
      tool(() => 1, { name: 'a', description: 'First line */ x\nsecond', parameters: open({}) }),
      tool(() => 1, { name: 'b', description: 'One\u2028function evil(): void;', parameters: open({}) }),
    ).codeApi().declarations;
    expect(tricky).toContain(' * First line *\\/ x\n * second\n');
    expect(tricky).not.toMatch(/^function evil/m);
    // The server prefix is dropped inside the server's namespace; the provider-run tool is left out.
    expect(functions).toEqual([
      { namespace: 'tools', name: 'list_customers', tool: 'list_customers' },
      { namespace: 'tools', name: 'send_email', tool: 'send-email' },
      { namespace: 'tools', name: 'tagged', tool: 'tagged' },
      { namespace: 'billing', name: 'list_invoices', tool: 'billing_list_invoices' },
      { namespace: 'mail_server', name: 'send', tool: 'send' },
    ]);
    expect(declarations).not.toContain('openai_web_search');
  });

  it('is deterministic: the same tools give the same text', () => {
    expect(toolset().codeApi()).toEqual(toolset().codeApi());
  });

  it(
    'gives declarations tsc accepts, and that type-check the calls a program makes',
    () => {
      const { declarations } = toolset().codeApi();
      const good = [
        "const page = await tools.list_customers({ region: 'EU', limit: 5 });",
        'const owed: number = page.customers.reduce((sum, c) => sum + c.unpaid, 0);',
        "await tools.send_email({ to: 'a@example.com', body: String(owed) });",
        "await tools.tagged({ kind: { n: 1 }, pair: ['x', 2], scores: { a: 1 }, both: { a: 'x', b: true }, node: { label: 'a', child: { label: 'b' } } });",
        "const invoices = await billing.list_invoices({ status: 'unpaid' });",
        'const first: string | undefined = invoices.invoices?.[0]?.id;',
        "await mail_server.send({ to: 'b@example.com' });",
      ].join('\n');
      expect(typeCheck(declarations, good)).toEqual([]);
      const bad = [
        "await tools.list_customers({ region: 'ASIA' });",
        "await tools.send_email({ to: 'a' });",
        "const n: string = (await tools.list_customers({ region: 'EU' })).customers[0]!.unpaid;",
      ].join('\n');
      const problems = typeCheck(declarations, bad);
      expect(problems).toHaveLength(3);
      expect(problems.every((p) => p.startsWith('program.ts'))).toBe(true);
    },
    scaled(30_000),
  );

  it(
    'names an argument several functions of a namespace share once, with its description, where that is shorter',
    () => {
      const page = { type: 'integer', description: 'Most results per page (25 by default).' };
      const string = { type: 'string', description: 'A property whose name is a type keyword.' };
      const ref = { $ref: '#/$defs/Id' };
      const paged = (name: string) =>
        remote('crm', name, {
          ...open({ limit: page, string, id: ref, [`${name}_query`]: { type: 'string', description: 'Own.' } }),
          $defs: { Id: { type: 'string' } },
        });
      const { declarations } = new Toolset(paged('list_a'), paged('list_b'), paged('list_c'), paged('list_d')).codeApi();
      expect(declarations).toContain('// Most results per page (25 by default).\ntype limit = number;\n');
      expect(declarations).toContain('// A property whose name is a type keyword.\ntype string_ = string;\n');
      expect(declarations).toContain(' limit?: limit\n string?: string_\n');
      // Each use keeps its own: the description appears once.
      expect(declarations.split('Most results per page').length - 1).toBe(1);
      // A reference means its own tool's def: never shared; a description used by one function stays with it.
      expect(declarations).not.toContain('type id =');
      expect(declarations).toContain(' list_a_query?: string // Own.\n');
      // Below the threshold, nothing is named.
      const two = new Toolset(paged('list_a'), paged('list_b')).codeApi().declarations;
      expect(two).not.toContain('type limit');
      expect(two.split('Most results per page').length - 1).toBe(2);
      expect(typeCheck(declarations, 'await crm.list_a({ limit: 5, string: "x" }); await crm.list_d({});')).toEqual([]);
      expect(typeCheck(declarations, 'await crm.list_a({ limit: "5" });')).toHaveLength(1);
    },
    scaled(30_000),
  );

  it('writes a schema on its own as a type, its defs after it (schemaType)', () => {
    expect(schemaType(customerOutput)).toBe('{ customers: Customer[] }\ntype Customer = { id: string; unpaid: number; tags?: string[] };');
    expect(schemaType({ type: 'array', items: { type: 'string' } })).toBe('string[]');
  });

  it('is empty for a toolset without tools a program can call', () => {
    expect(new Toolset().codeApi()).toEqual({ declarations: '', functions: [] });
    expect(new Toolset(builtin.openai.webSearch()).codeApi().functions).toEqual([]);
  });

  it(
    'keeps names apart: a namespace never takes a global name, functions never collide',
    () => {
      const set = new Toolset(
        remote('console', 'log', open({})),
        remote('tools', 'a', open({})),
        tool(() => 1, { name: 'a-b', description: 'One.', parameters: open({}) }),
        tool(() => 1, { name: 'a_b', description: 'Two.', parameters: open({}) }),
        tool(() => 1, { name: 'delete', description: 'Three.', parameters: open({}) }),
      );
      const { functions, declarations } = set.codeApi();
      expect(functions.map((f) => `${f.namespace}.${f.name}`)).toEqual(['tools.a_b', 'tools.a_b_2', 'tools._delete', 'console_2.log', 'tools_2.a']);
      expect(typeCheck(declarations, 'await tools.a_b(); await tools._delete(); await console_2.log(); await tools_2.a();')).toEqual([]);
    },
    scaled(30_000),
  );
});
