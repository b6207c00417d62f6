import type * as TS from 'typescript';
import type { JsonSchema } from '@anytool/core';
import { loadTypescriptJsonSchema } from '../typescript-modules.cjs';

/** The part of typescript-json-schema's generator used here: JSDoc text and tags into schema keywords. */
interface CommentParser {
  parseCommentsIntoDefinition(symbol: TS.Symbol | undefined, definition: Record<string, unknown>, otherAnnotations: Record<string, true>): void;
}

/**
 * Reads a symbol's JSDoc into schema keywords (`description`, `@minimum`,
 * `@maxLength`, `@pattern`, `@format`, `@default`, `@example` ...), with
 * typescript-json-schema's own parser, constructed on the emitting program's checker.
 */
export class JsDocReader {
  private readonly parser: CommentParser;

  constructor(checker: TS.TypeChecker) {
    const { JsonSchemaGenerator, getDefaultArgs } = loadTypescriptJsonSchema();
    // Typed against typescript-json-schema's own TypeScript; the parser only calls the checker's and symbols' methods, the same in every release.
    const generator = new JsonSchemaGenerator([], {}, {}, {}, checker as never, { ...getDefaultArgs(), validationKeywords: ['example'] });
    this.parser = generator as unknown as CommentParser;
  }

  /** Adds the symbol's description and keyword tags to `schema`. */
  annotate(symbol: TS.Symbol, schema: JsonSchema): void {
    const found: Record<string, unknown> = {};
    this.parser.parseCommentsIntoDefinition(symbol, found, {});
    if ('example' in found) {
      found['examples'] = [found['example']];
      delete found['example'];
    }
    delete found['ignore'];
    if (typeof found['description'] === 'string' && found['description'] === '') delete found['description'];
    Object.assign(schema, found);
  }
}
