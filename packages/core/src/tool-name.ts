import { AnytoolError, ErrorCode } from './errors.js';

/** Each provider's rule for a tool name. A name anytool accepts passes all of them. */
export const TOOL_NAME_RULES: ReadonlyArray<{ provider: string; pattern: RegExp; rule: string }> = [
  { provider: 'OpenAI', pattern: /^[a-zA-Z0-9_-]{1,64}$/, rule: '1-64 characters: letters, digits, "_" and "-"' },
  { provider: 'Anthropic', pattern: /^[a-zA-Z0-9_-]{1,64}$/, rule: '1-64 characters: letters, digits, "_" and "-"' },
  {
    provider: 'Gemini',
    pattern: /^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$/,
    rule: 'starts with a letter or "_", at most 64 characters: letters, digits, "_", ".", ":" and "-"',
  },
  { provider: 'MCP', pattern: /^[a-zA-Z0-9_.-]{1,128}$/, rule: '1-128 characters: letters, digits, "_", "." and "-"' },
];

/** The longest name every provider accepts. */
export const MAX_TOOL_NAME_LENGTH = 64;

/** Throws a coded error naming every provider whose rule `name` breaks. */
export function checkToolName(name: string, owner: string): void {
  const broken = TOOL_NAME_RULES.filter((r) => !r.pattern.test(name));
  if (broken.length === 0) return;
  const rules = broken.map((r) => `${r.provider} needs ${r.rule}`).join('; ');
  throw new AnytoolError(
    ErrorCode.InvalidToolName,
    `${owner}: the name ${JSON.stringify(name)} is not accepted by every provider (${rules}); pass { name: '...' } with a name such as "${suggestToolName(name)}"`,
  );
}

/** A valid name close to `name`: bad characters become "_", a leading digit gets a "_" prefix, cut to 64. */
export function suggestToolName(name: string): string {
  let out = name.replace(/[^a-zA-Z0-9_-]/g, '_');
  if (!/^[a-zA-Z_]/.test(out)) out = `_${out}`;
  return out.slice(0, MAX_TOOL_NAME_LENGTH);
}
