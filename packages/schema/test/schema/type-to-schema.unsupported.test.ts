import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { AnytoolError, ErrorCode } from '@anytool/core';
import { DiagnosticCode, anytoolTransformer } from '@anytool/schema';
import { analyzeSourceFile } from '@anytool/schema/internal';
import { fixtures, programFor } from '../helpers';

const file = join(fixtures, 'unsupported', 'tools.ts');
const text = readFileSync(file, 'utf8');
const program = programFor([file]);
const { sites, diagnostics } = analyzeSourceFile(program, program.getSourceFile(file)!);

function lineOf(snippet: string): number {
  return text.slice(0, text.indexOf(snippet)).split('\n').length;
}

/** The one diagnostic about `label`, formatted as the build command prints it (file(line,col): ...). */
function diagnosticFor(label: string): { line: number; message: string; category: ts.DiagnosticCategory; formatted: string }[] {
  return diagnostics
    .filter((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n').startsWith(`${label}:`))
    .map((d) => ({
      line: d.file!.getLineAndCharacterOfPosition(d.start!).line + 1,
      message: ts.flattenDiagnosticMessageText(d.messageText, '\n'),
      category: d.category,
      formatted: ts.formatDiagnostic(d, { getCanonicalFileName: (f) => f, getCurrentDirectory: () => process.cwd(), getNewLine: () => '\n' }),
    }));
}

describe('types with no faithful JSON form are compile errors', () => {
  it.each([
    ['bigint', 'Ledger.total', 'amount', 'amount: bigint', /use number, or a string of digits/],
    ['Map', 'Lookup.find', 'index', 'index: Map<string, number>', /use Record<string, V>/],
    ['Set', 'Tagger.tag', 'tags', 'tags: Set<string>', /use an array \(T\[\]\)/],
    ['a function', 'Runner.run', 'callback', 'callback: (x: number) => void', /a function has no JSON form; .*take a name or an id/],
    ['symbol', 'Marker.mark', 'key', 'key: symbol', /use a string/],
    ['bigint nested in an interface', 'Nested.load', 'options.ids[]', 'options: Options', /bigint has no JSON form/],
    ['URL', 'LibUrl.take', 'url', 'url: URL', /a URL object has no JSON form; take the URL as a string/],
    ['Error', 'LibError.take', 'error', 'error: Error', /an Error has no JSON form; take the message as a string/],
    ['Function', 'LibFunction.take', 'fn', 'fn: Function', /a function has no JSON form/],
    ['Iterable', 'LibIterable.take', 'items', 'items: Iterable<string>', /an Iterable has no JSON form; use an array \(T\[\]\)/],
    ['AsyncIterable', 'LibAsyncIterable.take', 'items', 'items: AsyncIterable<string>', /an AsyncIterable has no JSON form; use an array/],
    ['Iterator', 'LibIterator.take', 'items', 'items: Iterator<string>', /an iterator has no JSON form; use an array/],
    [
      'a tuple with a leading rest element',
      'LeadingRest.last',
      'values',
      'values: [...string[], number]',
      /cannot be expressed in JSON Schema; put the rest element last/,
    ],
    ['a typed array', 'LibTypedArray.take', 'values', 'values: Float64Array', /a Float64Array is a typed array with no JSON form; take number\[\]/],
  ])('%s: names file, line, class.method and parameter, and what to write instead', (_kind, label, parameter, declaration, hint) => {
    const found = diagnosticFor(label);
    expect(found).toHaveLength(1);
    const [d] = found;
    expect(d!.category).toBe(ts.DiagnosticCategory.Error);
    expect(d!.line).toBe(lineOf(declaration));
    expect(d!.message).toContain(`${label}: parameter ${parameter} has type`);
    expect(d!.message).toMatch(hint);
    expect(d!.formatted).toContain(`tools.ts(${d!.line},`);
    expect(sites.map((s) => s.label)).not.toContain(label);
  });

  it('a tool() argument the build step cannot resolve is an error saying what to pass instead, not a silent skip', () => {
    const found = diagnostics.filter((d) => d.code === DiagnosticCode.UnresolvedTool);
    expect(found).toHaveLength(1);
    expect(found[0]!.category).toBe(ts.DiagnosticCategory.Error);
    expect(found[0]!.file!.getLineAndCharacterOfPosition(found[0]!.start!).line + 1).toBe(lineOf('tool(helpers.shout'));
    expect(ts.flattenDiagnosticMessageText(found[0]!.messageText, '\n')).toMatch(
      /^tool\(helpers\.shout\): the build step cannot find this function's declaration .*tool\(\(a: A\) => obj\.method\(a\)\)/,
    );
  });

  it('two ExecutionContext parameters are a compile error', () => {
    const found = diagnosticFor('TwoContexts.run');
    expect(found).toHaveLength(1);
    expect(found[0]!.category).toBe(ts.DiagnosticCategory.Error);
    expect(found[0]!.line).toBe(lineOf('run(context: ExecutionContext'));
    expect(found[0]!.message).toBe(
      'TwoContexts.run: parameter again is a second context parameter (parameter context already is one); a tool receives one ExecutionContext, so keep one context parameter',
    );
    expect(sites.map((s) => s.label)).not.toContain('TwoContexts.run');
  });

  it('an array-destructured parameter is an error saying array patterns are not supported', () => {
    const found = diagnosticFor('ArrayPattern.pair');
    expect(found).toHaveLength(1);
    expect(found[0]!.message).toBe(
      'ArrayPattern.pair: an array destructuring pattern ([name, count]) is not supported as a parameter, since arguments are named properties; name the parameter (pair: [string, number]) and destructure it in the body',
    );
  });

  it('a return type with no JSON form is a warning, and the tool builds without an output schema', () => {
    const found = diagnosticFor('BadReturn.load');
    expect(found).toHaveLength(1);
    expect(found[0]!.category).toBe(ts.DiagnosticCategory.Warning);
    expect(found[0]!.message).toMatch(
      /^BadReturn\.load: return type \{ id: string; size: bigint; \} at size \(bigint\): bigint has no JSON form; .*so the tool gets no output schema \(its result is still sent as content\)$/,
    );
    const load = sites.find((s) => s.label === 'BadReturn.load')!;
    expect(load.info.outputSchema).toBeUndefined();
  });

  it('any and unknown become {} (any JSON value) with a warning, and the tool still builds', () => {
    const found = diagnosticFor('Loose.loose');
    expect(found.map((d) => d.category)).toEqual([ts.DiagnosticCategory.Warning, ts.DiagnosticCategory.Warning]);
    expect(found[0]!.message).toMatch(/parameter value has type any: any accepts any JSON value/);
    expect(found[1]!.message).toMatch(/parameter other has type unknown/);
    const loose = sites.find((s) => s.label === 'Loose.loose')!;
    expect(loose.info.parameters).toEqual({ type: 'object', properties: { value: {}, other: {} }, required: ['value', 'other'], additionalProperties: false });
  });

  it('by default (ts-jest, ts-node) the transformer throws the errors with file and line', () => {
    const emitting = programFor([file], undefined, true);
    let thrown: unknown;
    try {
      emitting.emit(emitting.getSourceFile(file), () => undefined, undefined, false, { before: [anytoolTransformer(emitting)] });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(AnytoolError);
    expect((thrown as AnytoolError).code).toBe(ErrorCode.UnsupportedType);
    expect((thrown as Error).message).toMatch(
      new RegExp(`tools\\.ts\\(${lineOf('amount: bigint')},\\d+\\): error ANYTOOL91001: Ledger\\.total: parameter amount has type bigint`),
    );
  });
});
