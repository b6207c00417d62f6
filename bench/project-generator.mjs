// A generated project of realistic shape for the benchmarks of the ways in that compile file by file
// (bench/bundlers.mjs; the Node loader's): `files` tool files holding `tools` tools between them, a
// third each of classes with @Tool methods, tool() functions with JSDoc and BaseTool subclasses, whose
// parameters use types from a shared file and their own; src/main.ts puts them all in a Toolset and
// prints how many definitions have parameters, then calls one tool of each kind.
//
//   import { generateProject } from './project-generator.mjs';
//   generateProject(dir, { files: 40, tools: 200 });   // writes dir/src/*.ts, tsconfig.json, package.json
//
// The project is ES modules (package.json "type": "module", NodeNext imports with .js), so `anytool build`
// and Node run it as it is. Write it inside the repository (.tmp/, ignored by git) so it resolves the
// workspace packages.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const SHARED = `// Types shared by the tool files.

export type Currency = 'EUR' | 'USD' | 'NOK';

export interface Money {
  /** The amount in minor units (cents). */
  amount: number;
  currency: Currency;
}

export interface Address {
  /** Street and number. */
  street: string;
  city: string;
  /** @pattern ^[0-9]{4,5}$ */
  zip?: string;
  country: string;
}

export interface Paging {
  /**
   * Page size.
   * @minimum 1
   * @maximum 100
   * @default 20
   */
  limit?: number;
  cursor?: string;
}

export interface Customer {
  id: string;
  name: string;
  email?: string;
  address: Address;
  tags: string[];
  since?: Date;
}
`;

function localTypes(n) {
  return `export type Status${n} = 'open' | 'pending' | 'closed';

export interface Line${n} {
  sku: string;
  /**
   * How many.
   * @minimum 1
   */
  quantity: number;
  price: Money;
}

export interface Order${n} {
  id: string;
  customer: Customer;
  lines: Line${n}[];
  status: Status${n};
  shipTo?: Address;
  notes?: string | null;
}
`;
}

/** The i-th tool of file n in the style of kind k (0 class methods, 1 functions, 2 BaseTool subclasses). */
function classMethod(n, i) {
  const name = `order${n}_${i}`;
  switch (i % 5) {
    case 0:
      return `  /**
   * Find orders (${name}).
   * @param query Free text
   * @param status Only orders with this status
   */
  @Tool()
  ${name}(query: string, status: Status${n} = 'open', paging?: Paging): Order${n}[] {
    return [{ id: \`\${query}:\${status}:\${paging?.limit ?? 20}\` } as Order${n}];
  }`;
    case 1:
      return `  /** Place an order (${name}). */
  @Tool()
  async ${name}(order: Order${n}, context: ExecutionContext): Promise<{ id: string; total: Money }> {
    return { id: order.id + context.runId, total: { amount: order.lines.length, currency: 'EUR' } };
  }`;
    case 2:
      return `  /** Change where an order goes (${name}). */
  @Tool()
  ${name}(id: string, patch: Partial<Address>): boolean {
    return id.length > 0 && patch !== undefined;
  }`;
    case 3:
      return `  /** Score lines (${name}). */
  @Tool()
  ${name}({ lines, weights }: { lines: Line${n}[]; weights?: Record<string, number> }): number {
    return lines.length + Object.keys(weights ?? {}).length;
  }`;
    default:
      return `  /** Pick fields of a customer (${name}). */
  @Tool()
  ${name}(fields: Array<keyof Customer>, customer: Pick<Customer, 'id' | 'name'>, flag: boolean | null): string {
    return fields.join(',') + customer.name + String(flag);
  }`;
  }
}

function functionTool(n, i) {
  const name = `quote${n}_${i}`;
  switch (i % 3) {
    case 0:
      return `export const ${name} = tool(
  /**
   * Quote a price (${name}).
   * @param lines What to quote
   * @param currency The currency of the quote
   */
  function ${name}(lines: Line${n}[], currency: Currency = 'EUR'): Money {
    return { amount: lines.reduce((sum, line) => sum + line.quantity * line.price.amount, 0), currency };
  },
);`;
    case 1:
      return `/** Check an address (${name}). */
export const ${name} = tool(async ({ address, strict = false }: { address: Address; strict?: boolean }): Promise<boolean> => address.city.length > 0 || strict);`;
    default:
      return `export const ${name} = tool(
  /**
   * List a customer's orders (${name}).
   * @param customerId The customer
   */
  function ${name}(customerId: string, paging: Paging = {}, context?: ExecutionContext): string[] {
    return [customerId, String(paging.limit ?? 20), context?.runId ?? ''];
  },
);`;
  }
}

function baseTool(n, i) {
  const name = `Refund${n}_${i}`;
  return `/** The arguments of ${name}. */
export interface ${name}Args {
  orderId: string;
  /** How much to refund; all of it when left out. */
  amount?: Money;
  reason: 'damaged' | 'late' | 'other';
  customer?: Pick<Customer, 'id' | 'email'>;
}

/** Refund an order (${name}). */
export class ${name} extends BaseTool<${name}Args> {
  execute(_context: ExecutionContext, { orderId, reason }: ${name}Args): { refunded: boolean; orderId: string; reason: string } {
    return { refunded: true, orderId, reason };
  }
}`;
}

function toolFile(n, count) {
  const kind = n % 3;
  const imports =
    kind === 0
      ? `import { type ExecutionContext, Tool } from '@anytool/core';`
      : kind === 1
        ? `import { type ExecutionContext, tool } from '@anytool/core';`
        : `import { BaseTool, type ExecutionContext } from '@anytool/core';`;
  const head = `${imports}\nimport type { Address, Currency, Customer, Money, Paging } from './shared.js';\n\n${localTypes(n)}\n`;
  const indexes = Array.from({ length: count }, (_, i) => i);
  if (kind === 0) {
    return `${head}export class Orders${n} {\n${indexes.map((i) => classMethod(n, i)).join('\n\n')}\n}\n\nexport const tools = [new Orders${n}()];\n`;
  }
  if (kind === 1) {
    return `${head}${indexes.map((i) => functionTool(n, i)).join('\n\n')}\n\nexport const tools = [${indexes.map((i) => `quote${n}_${i}`).join(', ')}];\n`;
  }
  return `${head}${indexes.map((i) => baseTool(n, i)).join('\n\n')}\n\nexport const tools = [${indexes.map((i) => `new Refund${n}_${i}()`).join(', ')}];\n`;
}

/** Writes the project into `dir` (emptied first). */
export function generateProject(dir, { files = 40, tools = 200 } = {}) {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(dir, 'src'), { recursive: true });
  writeFileSync(join(dir, 'src', 'shared.ts'), SHARED);
  for (let n = 0; n < files; n++) {
    // The tools spread evenly over the files, the first ones taking one more when they do not divide.
    const count = Math.floor(tools / files) + (n < tools % files ? 1 : 0);
    writeFileSync(join(dir, 'src', `tools-${n}.ts`), toolFile(n, count));
  }
  const indexes = Array.from({ length: files }, (_, n) => n);
  writeFileSync(
    join(dir, 'src', 'main.ts'),
    `import { ExecutionContext, Toolset, resultText } from '@anytool/core';
${indexes.map((n) => `import { tools as tools${n} } from './tools-${n}.js';`).join('\n')}

async function main(): Promise<void> {
  const toolset = new Toolset(${indexes.map((n) => `tools${n}`).join(', ')});
  const definitions = toolset.definitions('openai');
  const withParameters = definitions.filter((d) => Object.keys((d.function.parameters['properties'] as object | undefined) ?? {}).length > 0).length;
  const context = new ExecutionContext();
  const results = [
    await toolset.invoke('order0_0', { query: 'shoes' }, context),
    await toolset.invoke('quote1_0', { lines: [{ sku: 'a', quantity: 2, price: { amount: 150, currency: 'EUR' } }] }, context),
    await toolset.invoke('Refund2_0', { orderId: 'o-1', reason: 'late' }, context),
  ];
  console.log(JSON.stringify({ tools: definitions.length, withParameters, results: results.map((r) => (r.isError === true ? 'ERROR ' : '') + resultText(r)) }));
}

void main();
`,
  );
  writeFileSync(join(dir, 'package.json'), '{ "private": true, "type": "module" }\n');
  const compilerOptions = {
    target: 'ES2022',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    strict: true,
    skipLibCheck: true,
    types: ['node'],
    rootDir: 'src',
    outDir: 'out',
  };
  writeFileSync(join(dir, 'tsconfig.json'), `${JSON.stringify({ compilerOptions, include: ['src'] }, null, 2)}\n`);
  return { files: files + 2, tools };
}
