// examples/code-mode: the built example as Node runs it (a local tool and an MCP server over stdio, one program),
// and the program it runs type-checked by tsc against the typed API of the real toolset, the MCP server's tools
// with their output schemas included.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { PROGRAM } from '../../examples/code-mode/task';
import { scaled } from '../../packages/core/test/helpers/time-scale';

jest.setTimeout(scaled(60_000));

const root = join(__dirname, '..', '..');
const dist = join(root, 'examples', 'dist', 'code-mode');

function built(file: string): string {
  const path = join(dist, file);
  if (!existsSync(path)) throw new Error(`${path} is missing: run \`npm run build\` (npm test does) before this test`);
  return path;
}

/** tsc's diagnostics for the declarations and a program using them, as the runner runs it (the body of an async function). */
function typeCheck(declarations: string, program: string): string[] {
  const files: Record<string, string> = { 'api.d.ts': declarations, 'program.ts': `export {};\nvoid (async () => { ${program}\n})();` };
  const options: ts.CompilerOptions = { strict: true, noEmit: true, target: ts.ScriptTarget.ES2022, lib: ['lib.es2022.d.ts'], types: [] };
  const host = ts.createCompilerHost(options);
  const read = host.readFile.bind(host);
  const exists = host.fileExists.bind(host);
  const getSourceFile = host.getSourceFile.bind(host);
  host.readFile = (name) => files[name] ?? read(name);
  host.fileExists = (name) => name in files || exists(name);
  host.getSourceFile = (name, version) => (name in files ? ts.createSourceFile(name, files[name]!, version) : getSourceFile(name, version));
  return ts.getPreEmitDiagnostics(ts.createProgram(Object.keys(files), options, host)).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
}

describe('examples/code-mode', () => {
  let run: { code: number | null; stdout: string; stderr: string };
  beforeAll(async () => {
    run = await new Promise((resolve) => {
      execFile(process.execPath, [built('main.js')], { cwd: root, timeout: scaled(50_000) }, (error, out, err) =>
        resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : null, stdout: out, stderr: err }),
      );
    });
  });

  it('runs: one program calls the local tools and the MCP server, and the answer names the five', () => {
    const { code, stdout, stderr } = run;
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(stdout).toContain('declare namespace billing {');
    expect(stdout).toContain(
      'The model made 1 tool call; its program made 7: list_customers, billing_list_invoices, send_email, send_email, send_email, send_email, send_email.',
    );
    expect(stdout).toContain('Outbox: 5 emails.');
    const answer = stdout.slice(stdout.indexOf('Emailed a payment reminder'));
    expect(answer.trim().split('\n')).toHaveLength(6);
  });

  it("type-checks the example's program against the typed API it printed, and catches a wrong one", () => {
    const start = run.stdout.indexOf('/** Local tools. */');
    const declarations = run.stdout.slice(start, run.stdout.indexOf('The model made'));
    // The MCP server's output schema came over the wire: the result type is known.
    expect(declarations).toMatch(/function list_invoices\(args\?: \{[\s\S]*?\}\): Promise<\{\n invoices: \{/);
    expect(typeCheck(declarations, PROGRAM)).toEqual([]);
    const wrong = PROGRAM.replace("status: 'unpaid'", "status: 'overdue'").replace('invoice.amount', 'invoice.total');
    expect(typeCheck(declarations, wrong)).toHaveLength(2);
  });
});
