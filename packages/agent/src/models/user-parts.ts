/**
 * The parts of a user's message (text, images, files) read once for every adapter:
 * bytes and base64 text become base64 with a MIME type (sniffed from the bytes of
 * an image that names none), a URL stays a URL. Each `<provider>-messages.ts` maps
 * them to its provider's own part types, and throws `UNSUPPORTED_BY_MODEL`, naming
 * the adapter, for a part its provider cannot take (`unsupportedPart`).
 */
import { AnytoolError, ErrorCode } from '@anytool/core';
import { describeError, sniffMimeType, toBase64 } from '@anytool/core/internal';
import type { UserMessage, UserPart } from '../model.js';

/** A part as the adapters read it. */
export type ReadPart =
  | { type: 'text'; text: string }
  | {
      type: 'image' | 'file';
      /** Undefined for a URL whose type the message did not say. */
      mimeType: string | undefined;
      /** With bytes: them, in base64. */
      base64?: string;
      /** With a URL: it. */
      url?: string;
      filename?: string;
    };

/** The MIME type of a PDF's first bytes (`%PDF`). */
function sniffPdf(bytes: Uint8Array): string | undefined {
  return bytes[0] === 0x25 && bytes[1] === 0x50 && bytes[2] === 0x44 && bytes[3] === 0x46 ? 'application/pdf' : undefined;
}

const BASE64 = /^[A-Za-z0-9+/\s]*={0,2}\s*$/;

/** The parts of a user message's content, checked and read; `adapter` names who reads them, for errors. */
export function readUserParts(content: UserMessage['content'], adapter: string): ReadPart[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  if (!Array.isArray(content))
    throw invalid(adapter, `a user message's content must be a string or an array of parts, got ${describeError(content).slice(0, 60)}`);
  return content.map((part, i) => readPart(part, i, adapter));
}

function readPart(part: UserPart, index: number, adapter: string): ReadPart {
  const where = `part ${index} of a user message`;
  if (typeof part !== 'object' || part === null) throw invalid(adapter, `${where} must be an object, got ${describeError(part).slice(0, 60)}`);
  if (part.type === 'text') {
    if (typeof part.text !== 'string') throw invalid(adapter, `${where} (text) has no string \`text\``);
    return { type: 'text', text: part.text };
  }
  if (part.type !== 'image' && part.type !== 'file') {
    throw invalid(
      adapter,
      `${where} has type ${JSON.stringify((part as { type?: unknown }).type)}; a part is { type: 'text' }, { type: 'image' } or { type: 'file' }`,
    );
  }
  const hasData = part.data !== undefined;
  const hasUrl = part.url !== undefined;
  if (hasData === hasUrl) throw invalid(adapter, `${where} (${part.type}) needs exactly one of \`data\` (bytes or base64 text) and \`url\``);
  const filename = part.type === 'file' ? part.filename : undefined;
  const named = part.mimeType;
  if (named !== undefined && (typeof named !== 'string' || !/^[\w.+-]+\/[\w.+-]+$/.test(named))) {
    throw invalid(adapter, `${where} (${part.type}) has mimeType ${JSON.stringify(named)}, which is not a MIME type such as "image/png"`);
  }
  if (part.type === 'file' && named === undefined && !hasData) throw invalid(adapter, `${where} (file) needs its \`mimeType\`, such as "application/pdf"`);
  const read: ReadPart = { type: part.type, mimeType: named };
  if (filename !== undefined) read.filename = filename;
  if (hasUrl) {
    const url = part.url instanceof URL ? part.url.href : part.url;
    if (typeof url !== 'string' || !/^https?:\/\//i.test(url))
      throw invalid(adapter, `${where} (${part.type}) has url ${describeError(url).slice(0, 80)}; give an http(s) URL, or the bytes as \`data\``);
    read.url = url;
    return read;
  }
  let bytes: Uint8Array | undefined;
  if (part.data instanceof Uint8Array) {
    bytes = part.data;
    read.base64 = toBase64(part.data);
  } else if (typeof part.data === 'string' && BASE64.test(part.data)) {
    read.base64 = part.data.replace(/\s/g, '');
    bytes = Buffer.from(read.base64.slice(0, 24), 'base64');
  } else {
    throw invalid(adapter, `${where} (${part.type}) has \`data\` that is neither bytes (a Uint8Array or Buffer) nor base64 text`);
  }
  read.mimeType ??= sniffMimeType(bytes) ?? sniffPdf(bytes);
  if (read.mimeType === undefined) throw invalid(adapter, `${where} (${part.type}) has bytes of no type it recognises; give its \`mimeType\``);
  return read;
}

/** The part as a data URL (bytes only). */
export function dataUrl(part: Extract<ReadPart, { type: 'image' | 'file' }>): string {
  return `data:${part.mimeType};base64,${part.base64}`;
}

/** What an adapter throws for a part its provider cannot take: names the adapter, the part and the way out. */
export function unsupportedPart(adapter: string, what: string, fix: string): AnytoolError {
  return new AnytoolError(ErrorCode.UnsupportedByModel, `${adapter}: ${what}; ${fix}`);
}

/** The text of a user message, for run events: its text parts, and a note of each image or file. */
export function userText(content: UserMessage['content']): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part) =>
      part?.type === 'text'
        ? part.text
        : part?.type === 'image' || part?.type === 'file'
          ? `[${part.type}${part.mimeType === undefined ? '' : ` ${part.mimeType}`}]`
          : '',
    )
    .filter((text) => text !== '')
    .join('\n');
}

/** A user message whose bytes are base64 text: JSON-safe, as a paused run's state must be. */
export function jsonSafeMessage<M extends { role: string }>(message: M): M {
  if (message.role !== 'user') return message;
  const content = (message as unknown as UserMessage).content;
  if (!Array.isArray(content) || !content.some((part) => (part?.type === 'image' || part?.type === 'file') && part.data instanceof Uint8Array)) return message;
  return {
    ...message,
    content: content.map((part) =>
      (part.type === 'image' || part.type === 'file') && part.data instanceof Uint8Array ? { ...part, data: toBase64(part.data) } : part,
    ),
  };
}

function invalid(adapter: string, what: string): AnytoolError {
  return new AnytoolError(ErrorCode.InvalidOptions, `${adapter}: ${what}`);
}
