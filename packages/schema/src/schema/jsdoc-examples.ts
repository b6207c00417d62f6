/**
 * The `@example` blocks of a tool's JSDoc that hold an arguments object: JSON, or a
 * JavaScript object literal of plain values (`{ city: 'Oslo', days: 3 }`), with or
 * without a code fence. An `@example` of code (`getWeather('Oslo')`) documents the
 * function for people and is left alone. The tool-site analysis checks each object
 * against the tool's parameters (`exampleProblems`) and passes them to the runtime.
 */
import type * as TS from 'typescript';
import { ts } from '../typescript.js';

/** What one tool's `@example` blocks give: the objects, and why any block that looks like one is not. */
export interface ReadExamples {
  examples: Record<string, unknown>[];
  /** Each example's number among the tool's `@example` blocks, from 1. */
  numbers: number[];
  /** Why blocks that look like arguments objects are not, by block number. */
  problems: Array<{ number: number; text: string }>;
}

/** The examples among `tags` (a declaration's JSDoc tags, in order). */
export function readExamples(tags: readonly TS.JSDocTagInfo[]): ReadExamples {
  const read: ReadExamples = { examples: [], numbers: [], problems: [] };
  let index = 0;
  for (const tag of tags) {
    if (tag.name !== 'example') continue;
    index++;
    const text = unfenced(ts.displayPartsToString(tag.text ?? []));
    if (!text.startsWith('{')) continue;
    const value = parseObject(text);
    if (value === undefined) {
      read.problems.push({
        number: index,
        text: `its @example ${index} starts like an arguments object but is neither JSON nor an object literal of plain values (strings, numbers, booleans, null, arrays, objects)`,
      });
    } else {
      read.examples.push(value);
      read.numbers.push(index);
    }
  }
  return read;
}

/** The block's text without a Markdown code fence around it. */
function unfenced(text: string): string {
  const trimmed = text.trim();
  const fenced = /^```[\w-]*\s*\n([\s\S]*?)\n\s*```$/.exec(trimmed);
  return (fenced === null ? trimmed : fenced[1]!).trim();
}

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(text) as unknown;
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    // Not JSON: perhaps an object literal, as JavaScript writes one.
  }
  const file = ts.createSourceFile('example.ts', `(${text})`, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const statement = file.statements[0];
  if (file.statements.length !== 1 || statement === undefined || !ts.isExpressionStatement(statement)) return undefined;
  const expression = ts.isParenthesizedExpression(statement.expression) ? statement.expression.expression : statement.expression;
  const value = literal(expression);
  return value === NOT_LITERAL || typeof value !== 'object' || value === null || Array.isArray(value) ? undefined : (value as Record<string, unknown>);
}

const NOT_LITERAL = Symbol('not a literal');

/** The value of a literal expression of plain values, or `NOT_LITERAL`. */
function literal(node: TS.Expression): unknown {
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
  if (ts.isNumericLiteral(node)) return Number(node.text);
  if (ts.isPrefixUnaryExpression(node) && node.operator === ts.SyntaxKind.MinusToken && ts.isNumericLiteral(node.operand)) return -Number(node.operand.text);
  if (node.kind === ts.SyntaxKind.TrueKeyword) return true;
  if (node.kind === ts.SyntaxKind.FalseKeyword) return false;
  if (node.kind === ts.SyntaxKind.NullKeyword) return null;
  if (ts.isArrayLiteralExpression(node)) {
    const items = node.elements.map((element) => literal(element));
    return items.includes(NOT_LITERAL) ? NOT_LITERAL : items;
  }
  if (ts.isObjectLiteralExpression(node)) {
    const object: Record<string, unknown> = {};
    for (const property of node.properties) {
      if (!ts.isPropertyAssignment(property)) return NOT_LITERAL;
      const name = property.name;
      const key = ts.isIdentifier(name) || ts.isStringLiteral(name) || ts.isNumericLiteral(name) ? name.text : undefined;
      const value = literal(property.initializer);
      if (key === undefined || value === NOT_LITERAL) return NOT_LITERAL;
      object[key] = value;
    }
    return object;
  }
  return NOT_LITERAL;
}
