/**
 * The SDK puts whole messages into some error texts ("Received a response for an
 * unknown message ID: {...}"), such as a user's answer to an elicitation, passwords
 * included. Keeps the id and the kind of the message, never its content.
 */
export function withoutPayload(error: Error): Error {
  const match = /^([^{]*?):? (\{.*\})$/s.exec(error.message);
  if (match === null) return error;
  let message: Record<string, unknown> = {};
  try {
    message = JSON.parse(match[2]!) as Record<string, unknown>;
  } catch {
    // not JSON after all: the kind stays unknown
  }
  const kind =
    'result' in message
      ? 'a result'
      : 'error' in message
        ? 'an error'
        : typeof message['method'] === 'string'
          ? `method ${message['method'].slice(0, 80)}`
          : 'a message';
  const id = 'id' in message ? `request id ${JSON.stringify(message['id']).slice(0, 80)}` : 'no id';
  return new Error(`${match[1]} (${id}, ${kind}; its content is not logged)`);
}
