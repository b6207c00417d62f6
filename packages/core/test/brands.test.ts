// Two copies of @anytool/core in one process (two installed versions, or the ES and CommonJS
// builds side by side): what one copy makes, the other recognises. Here the sources under test
// are one copy, and the built CommonJS package copied to a scratch directory is the other.
// Legacy parameter types (`emitDecoratorMetadata`) need a Reflect.metadata polyfill, which the user loads.
import 'reflect-metadata';
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import * as core from '@anytool/core';
import {
  AnytoolError,
  BaseTool,
  ErrorCode,
  ExecutionContext,
  FunctionTool,
  Toolset,
  isAnytoolError,
  isBaseTool,
  isExecutionContext,
  isToolset,
  resultText,
} from '@anytool/core';
import { scaled } from './helpers/time-scale';

type Core = typeof core;

const root = join(__dirname, '..', '..', '..');
const pkg = join(root, 'packages', 'core');
let scratch: string;
let other: Core;

beforeAll(() => {
  if (!existsSync(join(pkg, 'dist', 'cjs', 'index.js')))
    execFileSync(process.execPath, [join(root, 'scripts', 'build.mjs'), 'core'], { cwd: root, stdio: 'pipe' });
  // Inside the package, so the copy finds core's dependencies (ajv) the way an installed one does.
  mkdirSync(join(pkg, '.tmp'), { recursive: true });
  scratch = mkdtempSync(join(pkg, '.tmp', 'copy-'));
  cpSync(join(pkg, 'dist', 'cjs'), join(scratch, 'cjs'), { recursive: true });
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- the copy is loaded by path, as its own module graph
  other = require(join(scratch, 'cjs', 'index.js')) as Core;
}, scaled(120_000));

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const parameters = { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] } as const;

describe('two copies of @anytool/core', () => {
  it('are two copies: their classes differ', () => {
    expect(other.BaseTool).not.toBe(BaseTool);
    expect(other.Toolset).not.toBe(Toolset);
    expect(Object.getPrototypeOf(other.tool(() => 1, { name: 'x', description: 'x', parameters: { type: 'object' } }))).not.toBe(FunctionTool.prototype);
  });

  it("a Toolset of one copy takes and calls the other copy's tools, @Tool classes and toolsets", async () => {
    const add = other.tool((a: number, b: number) => a + b, { name: 'add', description: 'Add.' }, { parameters, paramNames: ['a', 'b'] });
    class Greeter {
      greet(args: { name: string }): string {
        return `hello ${args.name}`;
      }
    }
    other.defineTool(Greeter, 'greet', { description: 'Greet.', parameters: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } });
    const nested = new other.Toolset(other.tool(() => 'pong', { name: 'ping', description: 'Ping.', parameters: { type: 'object' } }));

    const toolset = new Toolset(add, new Greeter(), nested);
    expect(toolset.names.sort()).toEqual(['add', 'greet', 'ping']);
    expect((await toolset.invoke('add', { a: 2, b: 3 })).structured).toBe(5);
    expect(resultText(await toolset.invoke('greet', { name: 'Ada' }))).toBe('hello Ada');
    expect(resultText(await toolset.invoke('ping', {}))).toBe('pong');
    const refused = await toolset.invoke('add', { a: 'two' });
    expect(refused).toMatchObject({ isError: true, error: { code: ErrorCode.InvalidArguments } });

    // And the other way round: the other copy's Toolset takes this copy's tools.
    const back = new other.Toolset(
      new FunctionTool((a: number, b: number) => a * b, { name: 'mul', description: 'Multiply.' }, { parameters, paramNames: ['a', 'b'] }),
    );
    expect((await back.invoke('mul', { a: 6, b: 7 }, new ExecutionContext())).structured).toBe(42);
  });

  it('a toolset of either copy cannot come to hold itself through the other', () => {
    const mine = new Toolset();
    const theirs = new other.Toolset(mine);
    expect(() => mine.add(theirs)).toThrow(expect.objectContaining({ code: ErrorCode.InvalidToolDefinition }) as Error);
  });

  it('brands: the predicates and instanceof of the base classes accept objects of the other copy', () => {
    const tool = other.tool(() => 1, { name: 'one', description: 'One.', parameters: { type: 'object' } });
    const error = new other.AnytoolError(other.ErrorCode.Timeout, 'late');
    const context = new other.ExecutionContext();
    const toolset = new other.Toolset();
    expect([isBaseTool(tool), isAnytoolError(error), isExecutionContext(context), isToolset(toolset)]).toEqual([true, true, true, true]);
    expect([tool instanceof BaseTool, error instanceof AnytoolError, context instanceof ExecutionContext, toolset instanceof Toolset]).toEqual([
      true,
      true,
      true,
      true,
    ]);
    expect(context.forCall('call_1') instanceof ExecutionContext).toBe(true);
    // Subclasses keep the ordinary check: a FunctionTool of the other copy is not this copy's FunctionTool.
    expect(tool instanceof FunctionTool).toBe(false);
    expect(tool instanceof other.FunctionTool).toBe(true);
    // And nothing else passes for them.
    for (const value of [{}, null, undefined, 'BaseTool', new Error('x'), Object.create(null) as object, { [Symbol.for('anytool.BaseTool')]: false }]) {
      expect([isBaseTool(value), isAnytoolError(value), isExecutionContext(value), isToolset(value)]).toEqual([false, false, false, false]);
      expect([value instanceof BaseTool, value instanceof AnytoolError, value instanceof ExecutionContext, value instanceof Toolset]).toEqual([
        false,
        false,
        false,
        false,
      ]);
    }
  });

  it("an error of the other copy keeps its code in a tool's error result", async () => {
    const late = new FunctionTool(
      () => {
        throw new other.AnytoolError(other.ErrorCode.Timeout, 'the upstream timed out');
      },
      { name: 'late', description: 'Late.', parameters: { type: 'object' } },
    );
    const result = await late.invoke(new other.ExecutionContext() as unknown as ExecutionContext, {});
    expect(result.error).toEqual({ code: ErrorCode.Timeout, message: 'tool "late" (function (anonymous)): the upstream timed out' });
  });

  it("a legacy method parameter typed with the other copy's ExecutionContext receives the context", async () => {
    class Notes {
      note(text: string, context: ExecutionContext): string {
        return `${text} in ${context.runId}`;
      }
    }
    // What `emitDecoratorMetadata` writes for `note(text: string, context: ExecutionContext)` compiled against the other copy.
    (Reflect as unknown as { defineMetadata(key: string, value: unknown, target: object, property: string): void }).defineMetadata(
      'design:paramtypes',
      [String, other.ExecutionContext],
      Notes.prototype,
      'note',
    );
    core.defineTool(
      Notes,
      'note',
      { description: 'Note.' },
      { parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] }, paramNames: ['text'] },
    );
    const context = new ExecutionContext({ runId: 'run-9' });
    expect(resultText(await new Toolset(new Notes()).invoke('note', { text: 'hi' }, context))).toBe('hi in run-9');
  });
});
