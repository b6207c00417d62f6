import { AnytoolError, ErrorCode, type PatternEngine } from '@anytool/core';
import { describeError } from '@anytool/core/internal';
import { requireRe2, type Re2, type Re2Pattern } from './re2.cjs';

/** RE2JS, loaded by the first pattern compiled. */
let loaded: Re2 | undefined;
const re2 = (): Re2 => (loaded ??= requireRe2());

/** What JavaScript's `\s` matches (RE2's own is ASCII only), for use inside a character class. */
const SPACE_CHARS = '\\t\\n\\x0B\\f\\r \\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}\\x{2029}\\x{202F}\\x{205F}\\x{3000}\\x{FEFF}';
/** What JavaScript's `.` matches without the `s` flag (RE2's own leaves out only `\n`). */
const ANY_BUT_LINE_END = '[^\\n\\r\\x{2028}\\x{2029}]';

/**
 * The features of a JavaScript pattern that no linear-time engine runs, by how the
 * pattern spells them: each needs backtracking.
 */
function unsupported(pattern: string, index: number): string | undefined {
  const next = pattern[index + 1];
  if (pattern[index] === '\\') {
    if (next !== undefined && next >= '1' && next <= '9') return 'a backreference';
    if (next === 'k') return 'a named backreference';
    return undefined;
  }
  if (pattern[index] !== '(' || next !== '?') return undefined;
  const kind = pattern.slice(index + 2, index + 4);
  if (kind.startsWith('=') || kind.startsWith('!')) return 'a lookahead';
  if (kind === '<=' || kind === '<!') return 'a lookbehind';
  return undefined;
}

/**
 * The pattern in RE2's syntax with JavaScript's meaning (`u` flag): `\s`, `\S` and `.` as
 * JavaScript has them, `[]` and `[^]` as JavaScript reads them; RE2JS's own translation does
 * the rest (`\u` escapes, named groups). Throws for a feature RE2 cannot take.
 */
function toRe2(pattern: string): string {
  let out = '';
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i]!;
    const feature = inClass ? undefined : unsupported(pattern, i);
    if (feature !== undefined) throw refusal(pattern, `${feature} (at character ${i + 1})`);
    if (char === '\\') {
      const escaped = pattern[i + 1] ?? '';
      i++;
      if (escaped === 's') out += inClass ? SPACE_CHARS : `[${SPACE_CHARS}]`;
      else if (escaped === 'S' && !inClass) out += `[^${SPACE_CHARS}]`;
      else out += `\\${escaped}`;
    } else if (inClass) {
      if (char === ']') inClass = false;
      out += char;
    } else if (char === '[') {
      // JavaScript closes a class at a `]` right after its `[` or `[^`; RE2 reads that `]` as a member.
      if (pattern.startsWith('[]', i)) {
        out += '[^\\x00-\\x{10FFFF}]';
        i += 1;
      } else if (pattern.startsWith('[^]', i)) {
        out += '[\\x00-\\x{10FFFF}]';
        i += 2;
      } else {
        inClass = true;
        out += char;
      }
    } else if (char === '.') {
      out += ANY_BUT_LINE_END;
    } else {
      out += char;
    }
  }
  return re2().translateRegExp(out);
}

function refusal(pattern: string, what: string): AnytoolError {
  const shown = pattern.length <= 200 ? pattern : `${pattern.slice(0, 200)}…`;
  return new AnytoolError(
    ErrorCode.UnsupportedPattern,
    `its schema's pattern ${JSON.stringify(shown)} uses ${what}, which the linear-time engine for patterns of untrusted input cannot run; rewrite the pattern without it`,
  );
}

/**
 * ajv-formats' `url` (http, https and ftp URLs, private IPv4 hosts left out) in RE2's syntax:
 * the lookaheads that leave out private addresses are spelled as the octets they allow.
 * Compiled on first use: compiling it costs more than loading the rest of the client.
 */
let urlPattern: Re2Pattern | undefined;
function compileUrlPattern(): Re2Pattern {
  const nonSpace = `[^${SPACE_CHARS}]`;
  const octet = '(?:1?\\d{1,2}|2[0-4]\\d|25[0-5])';
  const last = '(?:[1-9]\\d?|1\\d\\d|2[0-4]\\d|25[0-4])';
  // 1-223 but 10, 127, 169, 172 and 192, which follow with the second octets they allow.
  const first = '(?:[1-9]|1[1-9]|[2-9]\\d|1[01]\\d|12[0-689]|1[3-5]\\d|16[0-8]|17[013-9]|18\\d|19[013-9]|2[01]\\d|22[0-3])';
  const ipv4 =
    `(?:${first}(?:\\.${octet}){2}` +
    `|169\\.(?:1?\\d{1,2}|2[0-4]\\d|25[0-35])\\.${octet}` +
    `|192\\.(?:\\d{1,2}|1(?:[0-57-9]\\d|6[0-79])|2[0-4]\\d|25[0-5])\\.${octet}` +
    `|172\\.(?:\\d|[04-9]\\d|1[0-5]|3[2-9]|1\\d\\d|2[0-4]\\d|25[0-5])\\.${octet})\\.${last}`;
  const label = '[a-z0-9\\x{00A1}-\\x{FFFF}]';
  const host = `(?:(?:${label}+-)*${label}+)(?:\\.(?:${label}+-)*${label}+)*(?:\\.(?:[a-z\\x{00A1}-\\x{FFFF}]{2,}))`;
  const RE2 = re2();
  return RE2.compile(`^(?:https?|ftp)://(?:${nonSpace}+(?::${nonSpace}*)?@)?(?:${ipv4}|${host})(?::\\d{2,5})?(?:/${nonSpace}*)?$`, RE2.CASE_INSENSITIVE);
}

/**
 * The patterns of schemas from elsewhere (an MCP server's tools) and of tools served to
 * callers from elsewhere, on RE2 (RE2JS: linear time in the text's length, whatever the
 * pattern). A pattern that needs backtracking (a backreference, a lookaround) is refused
 * with `UNSUPPORTED_PATTERN`; one JavaScript cannot compile fails as it would there.
 */
export const linearPatterns: PatternEngine = Object.assign(
  (pattern: string, flags: string) => {
    // A pattern JavaScript refuses fails as it does there, with JavaScript's message.
    void new RegExp(pattern, flags);
    try {
      return re2().compile(toRe2(pattern));
    } catch (error) {
      if (error instanceof AnytoolError) throw error;
      throw refusal(pattern, `syntax RE2 does not take (${describeError(error)})`);
    }
  },
  // ajv-formats' own `url` check backtracks polynomially on long strings.
  { formats: { url: (text: string) => (urlPattern ??= compileUrlPattern()).test(text) } },
);
