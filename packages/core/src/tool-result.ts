import { AnytoolError, ErrorCode, describeError } from './errors.js';

export interface TextContent {
  type: 'text';
  text: string;
}

export interface ImageContent {
  type: 'image';
  /** Base64-encoded bytes. */
  data: string;
  mimeType: string;
}

export interface AudioContent {
  type: 'audio';
  /** Base64-encoded bytes. */
  data: string;
  mimeType: string;
}

/** A resource whose contents travel with the result. */
export interface ResourceContent {
  type: 'resource';
  uri: string;
  mimeType?: string;
  text?: string;
  /** Base64-encoded bytes, when the resource is binary. */
  blob?: string;
}

/** A pointer to a resource the client can fetch. */
export interface ResourceLinkContent {
  type: 'resource_link';
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
}

export type ContentPart = TextContent | ImageContent | AudioContent | ResourceContent | ResourceLinkContent;

/** The outcome of one tool call, whatever the tool's source. */
export interface ToolResult {
  content: ContentPart[];
  /** The structured value, when the tool returned data rather than prose. */
  structured?: unknown;
  isError: boolean;
  /** Set on error results: the code and the full message for the developer. */
  error?: { code: ErrorCode | string; message: string };
}

const TOOL_RESULT = Symbol.for('anytool.toolResult');

/** Marks an object as a finished `ToolResult`, so `normalizeResult` passes it through untouched. */
export function toolResult(result: ToolResult): ToolResult {
  Object.defineProperty(result, TOOL_RESULT, { value: true, enumerable: false });
  return result;
}

/** The string fields each kind of content part must have, and those it may have. */
const PART_FIELDS: Readonly<Record<string, { required: readonly string[]; optional: readonly string[] }>> = {
  text: { required: ['text'], optional: [] },
  image: { required: ['data', 'mimeType'], optional: [] },
  audio: { required: ['data', 'mimeType'], optional: [] },
  resource: { required: ['uri'], optional: ['mimeType', 'text', 'blob'] },
  resource_link: { required: ['uri', 'name'], optional: ['title', 'description', 'mimeType'] },
};

/**
 * Whether `value` is a finished `ToolResult`: one marked by `toolResult()` (or its
 * helpers), or any object of exactly its shape (`content` parts of known kinds with
 * their fields, a boolean `isError`, and at most `structured` and `error` besides),
 * such as the result of another tool's `invoke`. A tool that returns one hands it on as is.
 */
export function isToolResult(value: unknown): value is ToolResult {
  if (typeof value !== 'object' || value === null) return false;
  if ((value as Record<symbol, unknown>)[TOOL_RESULT] === true) return true;
  return hasResultShape(value as Record<string, unknown>) && partProblem(value as unknown as ToolResult) === undefined;
}

/** The outer shape of a result: `content` parts of known kinds, a boolean `isError`, at most `structured` and `error` besides. */
function hasResultShape(value: Record<string, unknown>): boolean {
  const content = value['content'];
  if (typeof value['isError'] !== 'boolean' || !Array.isArray(content)) return false;
  for (const key in value) if (key !== 'content' && key !== 'isError' && key !== 'structured' && key !== 'error') return false;
  for (const part of content) {
    if (typeof part !== 'object' || part === null || !Object.hasOwn(PART_FIELDS, (part as { type?: unknown }).type as string)) return false;
  }
  const error = value['error'];
  if (error === undefined) return true;
  return (
    typeof error === 'object' &&
    error !== null &&
    typeof (error as { code?: unknown }).code === 'string' &&
    typeof (error as { message?: unknown }).message === 'string'
  );
}

/** What is wrong with the first broken part of a result of the right shape, or undefined. */
function partProblem(result: ToolResult): string | undefined {
  for (let i = 0; i < result.content.length; i++) {
    const part = result.content[i] as unknown as Record<string, unknown>;
    const type = part['type'] as string;
    const { required, optional } = PART_FIELDS[type]!;
    for (const field of required) {
      if (typeof part[field] !== 'string') return `content[${i}] (type "${type}") has no string "${field}" (a ${type} part needs ${required.join(' and ')})`;
    }
    for (const field of optional) {
      if (part[field] !== undefined && typeof part[field] !== 'string') return `content[${i}] (type "${type}") has a "${field}" that is not a string`;
    }
  }
  return undefined;
}

/** A successful result with one text part. */
export function textResult(text: string): ToolResult {
  return toolResult({ content: [{ type: 'text', text }], isError: false });
}

/** An error result: `text` is what the model reads; `code` and `message` are for the developer. */
export function errorResult(code: ErrorCode | string, text: string, message: string = text): ToolResult {
  return toolResult({ content: [{ type: 'text', text }], isError: true, error: { code, message } });
}

/** An image result from raw bytes. */
export function imageResult(bytes: Uint8Array, mimeType?: string): ToolResult {
  const type = mimeType ?? sniffMimeType(bytes) ?? 'application/octet-stream';
  return toolResult({ content: [{ type: 'image', data: toBase64(bytes), mimeType: type }], isError: false });
}

export function toBase64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
}

/** The MIME type of common image and audio formats, from their first bytes. */
export function sniffMimeType(bytes: Uint8Array): string | undefined {
  const b = (i: number): number => bytes[i] ?? -1;
  const ascii = (from: number, text: string): boolean => {
    for (let i = 0; i < text.length; i++) if (b(from + i) !== text.charCodeAt(i)) return false;
    return true;
  };
  if (b(0) === 0x89 && ascii(1, 'PNG')) return 'image/png';
  if (b(0) === 0xff && b(1) === 0xd8 && b(2) === 0xff) return 'image/jpeg';
  if (ascii(0, 'GIF8')) return 'image/gif';
  if (ascii(0, 'RIFF') && ascii(8, 'WEBP')) return 'image/webp';
  if (ascii(0, 'RIFF') && ascii(8, 'WAVE')) return 'audio/wav';
  if (ascii(0, 'OggS')) return 'audio/ogg';
  if (ascii(0, 'fLaC')) return 'audio/flac';
  if (ascii(0, 'ID3') || (b(0) === 0xff && (b(1) & 0xe0) === 0xe0)) return 'audio/mpeg';
  return undefined;
}

/**
 * Turns whatever a tool returned into a `ToolResult`:
 * - a `ToolResult` passes through: one made with `toolResult()` (or its helpers), or
 *   any object of exactly that shape, such as another tool's `invoke` result; one of
 *   that shape with a broken part (an image without `data`) throws `INVALID_RESULT`
 *   naming the part;
 * - a string becomes one text part;
 * - `undefined` and `null` become a result with no content;
 * - numbers, booleans and bigints become text;
 * - a `Uint8Array` (or Buffer) becomes an image or audio part when its bytes say so,
 *   otherwise an embedded binary resource;
 * - a `Date` becomes its ISO text;
 * - any other object or array becomes JSON text plus the structured value.
 */
export function normalizeResult(value: unknown): ToolResult {
  switch (typeof value) {
    case 'string':
      return { content: [{ type: 'text', text: value }], isError: false };
    case 'undefined':
      return { content: [], isError: false };
    case 'number':
    case 'boolean':
    case 'bigint':
      return { content: [{ type: 'text', text: String(value) }], structured: typeof value === 'bigint' ? String(value) : value, isError: false };
    case 'object':
      break;
    default:
      throw new AnytoolError(
        ErrorCode.InvalidResult,
        `a tool returned a ${typeof value}, which cannot be sent to a model; return a string, data or a ToolResult`,
      );
  }
  if (value === null) return { content: [], isError: false };
  if ((value as Record<symbol, unknown>)[TOOL_RESULT] === true) return value as ToolResult;
  if (hasResultShape(value as Record<string, unknown>)) {
    const problem = partProblem(value as ToolResult);
    if (problem !== undefined)
      throw new AnytoolError(ErrorCode.InvalidResult, `a tool returned a ToolResult whose ${problem}; fix that part, or return plain data`);
    return value as ToolResult;
  }
  if (value instanceof Uint8Array) {
    const mimeType = sniffMimeType(value);
    const data = toBase64(value);
    if (mimeType?.startsWith('image/')) return { content: [{ type: 'image', data, mimeType }], isError: false };
    if (mimeType?.startsWith('audio/')) return { content: [{ type: 'audio', data, mimeType }], isError: false };
    return { content: [{ type: 'resource', uri: 'data:application/octet-stream', mimeType: 'application/octet-stream', blob: data }], isError: false };
  }
  if (value instanceof Date) return { content: [{ type: 'text', text: value.toISOString() }], structured: value.toISOString(), isError: false };
  let text: string;
  try {
    text = JSON.stringify(value);
  } catch (error) {
    throw new AnytoolError(ErrorCode.InvalidResult, `a tool returned a value that is not JSON-serializable (${describeError(error)}); return plain data`, {
      cause: error,
    });
  }
  return { content: [{ type: 'text', text }], structured: value, isError: false };
}

/** The text parts of a result joined by newlines: what most models read. */
export function resultText(result: ToolResult): string {
  const parts: string[] = [];
  for (const part of result.content) {
    if (part.type === 'text') parts.push(part.text);
    else if (part.type === 'resource' && part.text !== undefined) parts.push(part.text);
    else if (part.type === 'resource_link') parts.push(`[resource ${part.name}: ${part.uri}]`);
    else if (part.type === 'image' || part.type === 'audio') parts.push(`[${part.type} ${part.mimeType}, ${Math.floor((part.data.length * 3) / 4)} bytes]`);
    else parts.push(`[resource ${part.uri}]`);
  }
  return parts.join('\n');
}
