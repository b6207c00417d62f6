/**
 * `Mcp-Param-*` headers (2026-07-28 era, SEP-2243). A tool's parameter
 * declared with `"x-mcp-header": "Region"` is mirrored by the client into the
 * `Mcp-Param-Region` header of the call, so proxies can route on it without
 * reading the body. The server must refuse a call whose header is missing,
 * badly encoded or different from the argument: HTTP 400, error -32020. The
 * SDK checks this only for its high-level `McpServer`; anytool checks it here,
 * against the tool definitions it already holds.
 */

/** A parameter mirrored into a header: where it sits in the arguments, and the header's name. */
export interface ParamHeader {
  path: string[];
  header: string;
  type: string | undefined;
}

/** The error code of a request whose headers disagree with its body. */
export const HEADER_MISMATCH = -32020;

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const DECIMAL = /^-?\d+(\.\d+)?$/;

/**
 * The mirrored parameters of an input schema: `x-mcp-header` on properties
 * reached through `properties` alone (anywhere else it does not count, as for
 * the clients, which leave such a tool out).
 */
export function paramHeaders(schema: Record<string, unknown>): ParamHeader[] {
  const found: ParamHeader[] = [];
  const visit = (node: unknown, path: string[]): void => {
    if (node === null || typeof node !== 'object') return;
    const record = node as Record<string, unknown>;
    const header = record['x-mcp-header'];
    if (path.length > 0 && typeof header === 'string' && TOKEN.test(header)) {
      found.push({ path, header, type: typeof record['type'] === 'string' ? record['type'] : undefined });
    }
    const properties = record['properties'];
    if (properties !== null && typeof properties === 'object') for (const [key, child] of Object.entries(properties)) visit(child, [...path, key]);
  };
  visit(schema, []);
  return found;
}

function asHeaderText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number' && Number.isFinite(value) && (!Number.isInteger(value) || Number.isSafeInteger(value))) return String(value);
  return undefined;
}

/** A header value as text: `=?base64?…?=` decoded (undefined when that is not canonical Base64 of UTF-8), anything else as it is. */
function decode(value: string): string | undefined {
  if (!(value.startsWith('=?base64?') && value.endsWith('?='))) return value;
  const base64 = value.slice(9, -2);
  if (!BASE64.test(base64)) return undefined;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(base64, 'base64'));
  } catch {
    return undefined;
  }
}

/** What is wrong with a call's `Mcp-Param-*` headers, if anything. */
export function paramHeaderProblem(declared: ParamHeader[], args: unknown, headerOf: (name: string) => string | undefined): string | undefined {
  for (const { path, header, type } of declared) {
    let value: unknown = args;
    for (const key of path) value = value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
    const text = asHeaderText(value);
    if (text === undefined) continue;
    const name = `Mcp-Param-${header}`;
    const sent = headerOf(name.toLowerCase());
    if (sent === undefined) return `the body carries ${path.join('.')}=${JSON.stringify(value)} but the ${name} header is absent`;
    const decoded = decode(sent);
    if (decoded === undefined) return `the ${name} header carries an invalid Base64 value (=?base64?…?=)`;
    const same = (type === 'integer' || type === 'number') && typeof value === 'number' && DECIMAL.test(decoded) ? Number(decoded) === value : decoded === text;
    if (!same) return `the ${name} header decodes to ${JSON.stringify(decoded)} but the body carries ${path.join('.')}=${JSON.stringify(value)}`;
  }
  return undefined;
}
