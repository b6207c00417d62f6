import { AnytoolError, ErrorCode } from '@anytool/core';
import { isRecord } from '@anytool/core/internal';
import {
  AudioContentSchema,
  ResultSchema,
  BlobResourceContentsSchema,
  CallToolResultSchema,
  EmbeddedResourceSchema,
  ImageContentSchema,
  ResourceLinkSchema,
  TextContentSchema,
  TextResourceContentsSchema,
} from '@modelcontextprotocol/core';
import type { CallToolResult, StandardSchemaV1 } from '@modelcontextprotocol/client';

/**
 * Checking a `tools/call` result. The connection requests it with a permissive
 * schema and checks it here with the SDK's `CallToolResultSchema`, so a result
 * the schema refuses fails with a short text that says which part and what was
 * wrong, not with the validator's dump (thousands of characters for one bad
 * part, since each part is tried against every content kind).
 */

/** Each content kind's own schema: checked alone, a bad part gets that kind's problems only. */
const PART_SCHEMAS: Record<
  string,
  typeof TextContentSchema | typeof ImageContentSchema | typeof AudioContentSchema | typeof ResourceLinkSchema | typeof EmbeddedResourceSchema
> = {
  text: TextContentSchema,
  image: ImageContentSchema,
  audio: AudioContentSchema,
  resource_link: ResourceLinkSchema,
  resource: EmbeddedResourceSchema,
};
const MAX_PROBLEMS = 3;
const MAX_MESSAGE = 120;

/** A validator's issue, the part of it used here (zod's `$ZodIssue`). */
export interface SchemaIssue {
  path: readonly PropertyKey[];
  message: string;
}

type Part = Record<string, unknown> & { type: string };
const isUnknownKind = (part: unknown): part is Part => isRecord(part) && typeof part['type'] === 'string' && !Object.hasOwn(PART_SCHEMAS, part['type']);

/**
 * The result as `CallToolResult`. A part of a kind MCP does not define (a newer
 * spec's, say) is kept as a text part showing it as JSON, and `note` is told;
 * anything else the schema refuses throws `MCP_INVALID_RESULT` naming up to three
 * problems. `where` names the tool and the server.
 */
export function checkCallResult(result: Record<string, unknown>, where: string, note: (message: string) => void): CallToolResult {
  const plain = plainTextResult(result);
  if (plain !== undefined) return plain;
  const parsed = CallToolResultSchema.safeParse(result);
  if (parsed.success) return parsed.data;
  const content = result['content'];
  if (Array.isArray(content) && content.some(isUnknownKind)) {
    const kinds = new Set<string>();
    const shown = content.map((part: unknown) => {
      if (!isUnknownKind(part)) return part;
      kinds.add(JSON.stringify(part.type.slice(0, 64)));
      return {
        type: 'text',
        text: `[content of type ${JSON.stringify(part.type.slice(0, 64))}, which this client does not know, as JSON: ${JSON.stringify(part)}]`,
      };
    });
    note(`${where} returned content of a type this client does not know (${[...kinds].join(', ')}); it was kept as text`);
    return checkCallResult({ ...result, content: shown }, where, note);
  }
  throw new AnytoolError(
    ErrorCode.McpInvalidResult,
    `${where} returned a result that is not valid MCP: ${summarize(resultProblems(result, parsed.error.issues))}.`,
  );
}

/** Up to three problems in one line, each short. */
export function summarize(problems: readonly string[]): string {
  const shown = problems.slice(0, MAX_PROBLEMS);
  if (problems.length > MAX_PROBLEMS) shown.push(`and ${problems.length - MAX_PROBLEMS} more`);
  return shown.join('; ');
}

/** `content[2].data: Invalid Base64 string`, the message cut short. */
export function describeIssue(issue: SchemaIssue, prefix = ''): string {
  const path = issue.path.reduce<string>((out, key) => (typeof key === 'number' ? `${out}[${key}]` : out === '' ? String(key) : `${out}.${String(key)}`), '');
  const message = issue.message.length > MAX_MESSAGE ? `${issue.message.slice(0, MAX_MESSAGE)}…` : issue.message;
  const where = `${prefix}${path}`;
  return where === '' ? message : `${where}: ${message}`;
}

/** The problems of each bad part, by its own kind's schema; else the schema's issues as they are. */
function resultProblems(result: Record<string, unknown>, issues: readonly SchemaIssue[]): string[] {
  const out: string[] = [];
  const content = result['content'];
  if (Array.isArray(content)) {
    content.forEach((part: unknown, i) => {
      if (!isRecord(part) || typeof part['type'] !== 'string') out.push(`content[${i}] is not a content part (an object with a "type")`);
      else out.push(...partIssues(part as Part).map((issue) => describeIssue(issue, `content[${i}] (${part['type']}) `)));
    });
  }
  return out.length > 0 ? out : issues.map((issue) => describeIssue(issue));
}

function partIssues(part: Part): SchemaIssue[] {
  const resource = part['resource'];
  // An embedded resource is text or a blob: check it as the one it claims to be, not as "neither".
  if (part.type === 'resource' && isRecord(resource)) {
    const inner = ('blob' in resource ? BlobResourceContentsSchema : TextResourceContentsSchema).safeParse(resource);
    if (!inner.success) return inner.error.issues.map((issue) => ({ path: ['resource', ...issue.path], message: issue.message }));
  }
  const parsed = PART_SCHEMAS[part.type]!.safeParse(part);
  return parsed.success ? [] : parsed.error.issues;
}

/**
 * The result most tools answer with, `{ content: [{ type: "text", text }, ...] }`
 * and maybe `isError`, and nothing else: what `CallToolResultSchema` gives for it
 * (a new object, its keys in the schema's order), built without running the
 * schema. Undefined for anything else, which the schema checks.
 */
function plainTextResult(result: Record<string, unknown>): CallToolResult | undefined {
  let keys = 0;
  for (const key in result) {
    if (!Object.hasOwn(result, key)) continue;
    if (key !== 'content' && key !== 'isError') return undefined;
    keys++;
  }
  const content = result['content'];
  const isError = result['isError'];
  if (!Array.isArray(content) || keys !== (isError === undefined ? 1 : 2) || (isError !== undefined && typeof isError !== 'boolean')) return undefined;
  const parts: Array<{ type: 'text'; text: string }> = new Array(content.length);
  for (let i = 0; i < content.length; i++) {
    const part: unknown = content[i];
    if (typeof part !== 'object' || part === null || Array.isArray(part)) return undefined;
    let partKeys = 0;
    for (const key in part) if (Object.hasOwn(part, key)) partKeys++;
    const { type, text } = part as Record<string, unknown>;
    if (partKeys !== 2 || type !== 'text' || typeof text !== 'string' || !Object.hasOwn(part, 'type') || !Object.hasOwn(part, 'text')) return undefined;
    parts[i] = { type: 'text', text };
  }
  return isError === undefined ? { content: parts } : { content: parts, isError };
}

/**
 * The SDK's `ResultSchema` (an object, its `_meta` checked) for a `tools/call`
 * request: a result without `_meta` passes as it is, without the schema's copy
 * (`checkCallResult` makes its own); anything else goes through the schema.
 */
export const CALL_RESULT_SCHEMA: StandardSchemaV1<unknown, Record<string, unknown>> = {
  '~standard': {
    version: 1,
    vendor: 'anytool',
    validate(value) {
      if (typeof value === 'object' && value !== null && !Array.isArray(value) && !Object.hasOwn(value, '_meta') && !Object.hasOwn(value, '__proto__'))
        return { value: value as Record<string, unknown> };
      return ResultSchema['~standard'].validate(value) as StandardSchemaV1.Result<Record<string, unknown>>;
    },
  },
};
