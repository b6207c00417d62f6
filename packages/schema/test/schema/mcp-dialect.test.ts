// Every MCP definition the build step makes (the corpus compiled by the transformer, and its
// zod port with no build step) is valid JSON Schema 2020-12, the dialect MCP assumes when a
// schema names none: draft-07 tuples (`items: [...]`) were not.
import { toolsFrom, Toolset } from '@anytool/core';
import { Ajv2020 } from 'ajv/dist/2020';
import * as corpusArrays from '../fixtures/corpus/arrays';
import * as corpusDates from '../fixtures/corpus/dates';
import * as corpusGenerics from '../fixtures/corpus/generics';
import * as corpusJsDoc from '../fixtures/corpus/jsdoc-tags';
import * as corpusLiterals from '../fixtures/corpus/literals';
import * as corpusObjects from '../fixtures/corpus/objects';
import * as corpusPrimitives from '../fixtures/corpus/primitives';
import * as corpusRecursive from '../fixtures/corpus/recursive';
import * as corpusShapes from '../fixtures/corpus/shapes';
import * as corpusUnions from '../fixtures/corpus/unions';
import * as zodArrays from '../fixtures/zod/arrays';
import * as zodRecursive from '../fixtures/zod/recursive';
import * as zodShapes from '../fixtures/zod/shapes';

const modules = {
  corpusArrays,
  corpusDates,
  corpusGenerics,
  corpusJsDoc,
  corpusLiterals,
  corpusObjects,
  corpusPrimitives,
  corpusRecursive,
  corpusShapes,
  corpusUnions,
  zodArrays,
  zodRecursive,
  zodShapes,
};

const tools = Object.entries(modules).flatMap(([module, exports]) =>
  Object.entries(exports as Record<string, unknown>)
    .filter((entry): entry is [string, new () => object] => typeof entry[1] === 'function')
    .flatMap(([name, Class]) => toolsFrom(new Class()).map((tool) => ({ label: `${module}.${name}.${tool.name}`, tool }))),
);

describe('MCP definitions of the build step in JSON Schema 2020-12', () => {
  const ajv = new Ajv2020({ strict: false, allErrors: true });

  it('covers tuples, rest elements and recursive types', () => {
    const texts = tools.map(({ tool }) => JSON.stringify(new Toolset(tool).definitions('mcp')));
    expect(texts.some((text) => text.includes('"prefixItems"'))).toBe(true);
    expect(texts.some((text) => text.includes('"$ref"'))).toBe(true);
    expect(tools.length).toBeGreaterThan(10);
  });

  it.each(tools)('$label', ({ tool }) => {
    const [definition] = new Toolset(tool).definitions('mcp');
    for (const schema of [definition!.inputSchema, definition!.outputSchema].filter((s) => s !== undefined)) {
      expect(ajv.validateSchema(schema) ? '' : ajv.errorsText(ajv.errors)).toBe('');
      expect(() => ajv.compile(schema)).not.toThrow();
      ajv.removeSchema(schema);
    }
  });
});
