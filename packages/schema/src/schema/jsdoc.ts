import type * as TS from 'typescript';
import type { JsonSchema } from '@anytool/core';
import { isRecord } from '@anytool/core/internal';

/**
 * The JSDoc tags that become schema keywords of the same name: JSON Schema's validation keywords and
 * annotations, as typescript-json-schema reads them (`@minimum 1`, `@pattern ^[a-z]+$`, `@default "x"`, and
 * `@items.minimum 0` or `@items minimum 0` for a keyword of the items' schema).
 */
const KEYWORDS = new Set([
  'multipleOf',
  'maximum',
  'exclusiveMaximum',
  'minimum',
  'exclusiveMinimum',
  'maxLength',
  'minLength',
  'pattern',
  'items',
  'maxItems',
  'minItems',
  'uniqueItems',
  'contains',
  'maxProperties',
  'minProperties',
  'additionalProperties',
  'enum',
  'type',
  'examples',
  'example',
  'ignore',
  'description',
  'format',
  'default',
  '$ref',
  'id',
  '$id',
  '$comment',
  'title',
]);

/** Keywords whose value is a schema: their tags may name one keyword of it (`@items.minimum 0`, `@items minimum 0`). */
const SUBSCHEMAS = new Set(['items', 'additionalProperties', 'contains']);

/**
 * Reads a symbol's JSDoc into schema keywords (`description`, `@minimum`, `@maxLength`, `@pattern`, `@format`,
 * `@default`, `@example` ...). A tag's text is JSON when it parses as JSON (`@default 3` is the number 3), else the
 * text itself (`@pattern ^\d+$`).
 *
 * Written here rather than taken from typescript-json-schema, whose comment parser this reads tags as: that
 * parser was the only part of it the build step used, and the package brought some forty more packages (ts-node,
 * yargs, glob) and a TypeScript of its own into every project. Left out: its `require(...)` tag values (a
 * comment that loads a module at build time).
 */
export class JsDocReader {
  constructor(private readonly checker: TS.TypeChecker) {}

  /** Adds the symbol's description and keyword tags to `schema`. */
  annotate(symbol: TS.Symbol, schema: JsonSchema): void {
    const found: Record<string, unknown> = {};
    if (!fromDefaultLibrary(symbol)) {
      const comment = symbol.getDocumentationComment(this.checker);
      if (comment.length > 0) {
        const description = comment.map((part) => (part.kind === 'linkText' ? normalized(part.text).trim() : normalized(part.text))).join('');
        found['description'] = description.trim();
      }
    }
    for (const tag of symbol.getJsDocTags()) keyword(tag, found);
    if ('example' in found) {
      found['examples'] = [found['example']];
      delete found['example'];
    }
    delete found['ignore'];
    if (typeof found['description'] === 'string' && found['description'] === '') delete found['description'];
    // `@items.minLength 2` adds to the items' schema the type gave (typescript-json-schema replaced it, losing its type).
    for (const key of SUBSCHEMAS) {
      const tagged = found[key];
      const typed = schema[key];
      if (isRecord(tagged) && isRecord(typed)) found[key] = { ...typed, ...tagged };
    }
    Object.assign(schema, found);
  }
}

/** Puts the keyword one tag names into `found`, if it names one. */
function keyword(tag: TS.JSDocTagInfo, found: Record<string, unknown>): void {
  let name = tag.name;
  let text = (tag.text ?? []).map((part) => part.text).join('');
  // typescript-json-schema's own spelling of a keyword tag: `@TJS-format email`, `@TJS -format email`.
  if (name.startsWith('TJS-')) {
    name = name.slice(4);
    if (text === '') text = 'true';
  } else if (name === 'TJS' && text.startsWith('-')) {
    const spelled = /^-(\w+)\s+(\S|\S[\s\S]*\S)\s*$/.exec(text);
    [name, text] = spelled === null ? [text.replace(/^[\s-]+/, ''), 'true'] : [spelled[1]!, spelled[2]!];
  }
  if (SUBSCHEMAS.has(name)) {
    const inner = /^[.]?(\w+)\s+(\S|\S[\s\S]*\S)\s*$/.exec(text);
    if (inner !== null) {
      found[name] = { ...(found[name] as object | undefined), [inner[1]!]: inner[2] === '' ? true : value(inner[2]!) };
      return;
    }
  }
  const [outer, inner, ...more] = name.split('.');
  if (inner !== undefined && more.length === 0 && SUBSCHEMAS.has(outer!)) {
    found[outer!] = { ...(found[outer!] as object | undefined), [inner]: text === '' ? true : value(text) };
  }
  if (KEYWORDS.has(name)) found[name] = value(text);
}

/** A tag's text as a keyword's value: JSON when it is JSON, else the text. */
function value(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function normalized(text: string): string {
  return text.replace(/\r\n/g, '\n');
}

/** Whether the symbol is declared by TypeScript's own library (its documentation is not the tool author's). */
function fromDefaultLibrary(symbol: TS.Symbol): boolean {
  const declaration = symbol.getDeclarations()?.[0];
  return declaration?.parent !== undefined && declaration.parent.getSourceFile().hasNoDefaultLib;
}
