import { AnytoolError, isAnytoolError } from '@anytool/core';
import { describeError } from '@anytool/core/internal';

/**
 * Credentials in a server URL. They never show: its user name, password and
 * query values (`?api_key=...`) become `***` in every message, diagnostic and
 * error, those of the SDK and of fetch included. And they work: fetch refuses a
 * URL with a user name and password, so they are sent as the `Authorization:
 * Basic` header instead (unless the configuration gives one).
 */

/** Absolute URLs in a text, without the punctuation that may follow one (`at <url>: ...`). */
const URL_IN_TEXT = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>`]*[^\s"'<>`.,;:!?)\]}]/gi;
/** Shorter values are masked only inside URLs: replaced everywhere, they would mangle ordinary words. */
const MIN_SECRET = 6;

/** The URL with its user name, password and query values replaced by `***`. */
export function redactUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return url;
  }
  if (parsed.username === '' && parsed.password === '' && parsed.search === '') return url;
  if (parsed.username !== '') parsed.username = '***';
  if (parsed.password !== '') parsed.password = '***';
  for (const key of new Set(parsed.searchParams.keys())) parsed.searchParams.set(key, '***');
  return parsed.href;
}

/** A function that masks the credentials of `url` in a text: in every URL of the text, and its longer secrets wherever they appear. */
export function redactor(url: string): (text: string) => string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return (text) => text;
  }
  const values = [parsed.username, parsed.password, ...parsed.searchParams.values()];
  const secrets = [...new Set(values.flatMap((v) => [v, safeDecode(v), encodeURIComponent(v)]))]
    .filter((v) => v.length >= MIN_SECRET)
    .sort((a, b) => b.length - a.length);
  return (text) => {
    let out = text.replace(URL_IN_TEXT, redactUrl);
    for (const secret of secrets) out = out.split(secret).join('***');
    return out;
  };
}

/** `error` with `redact` applied to its message; its cause too, replaced by a plain error when it showed a secret. */
export function redactError(error: AnytoolError, redact: (text: string) => string): AnytoolError {
  const message = redact(error.message);
  const detail = error.detail === undefined ? undefined : redact(error.detail);
  const cause = error.cause;
  const causeText = cause === undefined ? '' : describeError(cause);
  const safeCauseText = redact(causeText);
  if (message === error.message && detail === error.detail && safeCauseText === causeText) return error;
  const safeCause = safeCauseText === causeText ? cause : isAnytoolError(cause) ? redactError(cause, redact) : new Error(safeCauseText);
  return new AnytoolError(error.code, message, {
    ...(safeCause === undefined ? {} : { cause: safeCause }),
    ...(detail === undefined ? {} : { detail }),
  });
}

/** The URL without its user name and password, and the headers with them as `Authorization: Basic` (unless the headers have an Authorization). */
export function moveCredentials(url: string, headers: Record<string, string> | undefined): { url: URL; headers: Record<string, string> | undefined } {
  const out = new URL(url);
  if (out.username === '' && out.password === '') return { url: out, headers };
  const basic = Buffer.from(`${safeDecode(out.username)}:${safeDecode(out.password)}`).toString('base64');
  out.username = '';
  out.password = '';
  const given = Object.keys(headers ?? {}).some((name) => name.toLowerCase() === 'authorization');
  return { url: out, headers: given ? headers : { ...headers, Authorization: `Basic ${basic}` } };
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
