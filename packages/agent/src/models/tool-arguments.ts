/**
 * A tool call's arguments as the providers that take an object want them (Anthropic's
 * tool-use `input`, Gemini's `functionCall.args`): an object as it is, a string of JSON
 * parsed, any other string wrapped as `{ raw }` so the history stays valid.
 */
export function argumentsObject(args: unknown): Record<string, unknown> {
  if (isObject(args)) return args;
  if (typeof args === 'string') {
    try {
      const parsed: unknown = JSON.parse(args);
      if (isObject(parsed)) return parsed;
    } catch {
      // Not JSON: kept as the raw text.
    }
    return { raw: args };
  }
  return {};
}

/** A tool call's arguments as the OpenAI APIs want them: the JSON text (a string is sent as the model gave it). */
export function argumentString(args: unknown): string {
  return typeof args === 'string' ? args : JSON.stringify(args ?? {});
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
