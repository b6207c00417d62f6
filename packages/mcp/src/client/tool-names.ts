import { MAX_TOOL_NAME_LENGTH } from '@anytool/core/internal';
import { crypto } from '../shared/builtins.cjs';

const VALID = /^[a-zA-Z_][a-zA-Z0-9_-]*$/;
const HASH_LENGTH = 8;

/**
 * A name every provider accepts, made from an MCP tool's name (and its server's,
 * when prefixing). Characters providers refuse become "_"; a name longer than 64
 * characters keeps its start and ends with 8 hex digits of a SHA-256 of the whole
 * name, so it is the same on every run and two long names that share a start
 * still differ.
 *
 * @example
 * mcpToolName('filesystem', 'read_text_file', true) // 'filesystem_read_text_file'
 */
export function mcpToolName(server: string, tool: string, prefix: boolean): string {
  const full = prefix ? `${server}_${tool}` : tool;
  let name = full.replace(/[^a-zA-Z0-9_-]/g, '_');
  if (!VALID.test(name)) name = `_${name}`;
  if (name.length <= MAX_TOOL_NAME_LENGTH) return name;
  const hash = crypto().createHash('sha256').update(full).digest('hex').slice(0, HASH_LENGTH);
  return `${name.slice(0, MAX_TOOL_NAME_LENGTH - HASH_LENGTH - 1)}_${hash}`;
}
