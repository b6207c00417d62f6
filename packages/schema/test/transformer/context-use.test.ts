import { join } from 'node:path';
import { analyzeSourceFile } from '@anytool/schema/internal';
import { emitWithTransformer, fixtures, messages, programFor } from '../helpers';

const file = join(fixtures, 'context-use', 'tools.ts');

describe('the build step infers what a tool uses of its context', () => {
  const program = programFor([file]);
  const { sites, diagnostics } = analyzeSourceFile(program, program.getSourceFile(file)!);
  const contextOf = (name: string): unknown => sites.find((s) => s.name === name)?.info.context;

  it('finds literal state keys read and written, progress, recorded and read events', () => {
    expect(messages(diagnostics)).toEqual([]);
    expect(sites.map((s) => s.name).sort()).toEqual(['Tenant', 'addToCart', 'countCalls', 'logWhole', 'readAny', 'waiter']);
    expect(contextOf('addToCart')).toEqual({ state: { read: ['cart', 'coupon'], write: ['cart'] }, progress: true });
    expect(contextOf('countCalls')).toEqual({ state: { write: ['stale'] }, events: 'read' });
    expect(contextOf('logWhole')).toEqual({ events: 'read' });
    // Only the context parameter counts: another Map's `get` and `set` are not the run's state.
    expect(contextOf('Tenant')).toEqual({ state: { read: ['tenant'] } });
  });

  it('leaves state out when a key is not a string literal, and infers nothing for a tool that uses only its signal', () => {
    expect(contextOf('readAny')).toEqual({ events: 'record' });
    expect(contextOf('waiter')).toBeUndefined();
    expect(sites.find((s) => s.name === 'waiter')?.info.contextIndex).toBe(0);
  });

  it('emits the inference into the code, next to the schema', () => {
    const { js, diagnostics: emitted } = emitWithTransformer(programFor([file], undefined, true), file);
    expect(messages(emitted)).toEqual([]);
    expect(js.replace(/\s+/g, ' ')).toContain('context: { state: { read: ["cart", "coupon"], write: ["cart"] }, progress: true }');
    expect(js.replace(/\s+/g, ' ')).toContain('context: { state: { read: ["tenant"] } }');
  });
});
