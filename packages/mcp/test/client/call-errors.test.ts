import { AnytoolError, ErrorCode } from '@anytool/core';
import { ProtocolError, SdkError, SdkErrorCode, SdkHttpError } from '@modelcontextprotocol/client';
import { callFailureError, classifyCallFailure, type CallFacts } from '../../src/client/call-errors';

/*
 * A failed call is classified by the class and code of its error, with the SDK's own error
 * classes, and by what the connection knows of the call: never by the error's message.
 */

const facts = (more: Partial<CallFacts> = {}): CallFacts => ({ totalTimeout: undefined, aborted: false, abortReason: undefined, connected: true, ...more });
const words = { server: 's', tool: 't', timeout: 1_000, progress: false, quote: (text: string) => text };

describe('classifyCallFailure', () => {
  it('reads the SDK error classes and codes', () => {
    expect(classifyCallFailure(new SdkError(SdkErrorCode.RequestTimeout, 'x'), facts()).kind).toBe('timeout');
    expect(classifyCallFailure(new SdkError(SdkErrorCode.ConnectionClosed, 'x'), facts()).kind).toBe('connection-closed');
    expect(classifyCallFailure(new SdkError(SdkErrorCode.NotConnected, 'x'), facts()).kind).toBe('connection-closed');
    expect(classifyCallFailure(new ProtocolError(-32602, 'bad params'), facts())).toEqual({ kind: 'server-error', code: -32602, message: 'bad params' });
    expect(classifyCallFailure(new SdkHttpError(SdkErrorCode.ClientHttpNotImplemented, 'x', { status: 413 }), facts())).toEqual({
      kind: 'http-status',
      status: 413,
    });
    const tooLarge = new ProtocolError(-32090, 'x', { resultTooLarge: { size: 20, limit: 10, exact: true } });
    expect(classifyCallFailure(tooLarge, facts()).kind).toBe('result-too-large');
  });

  it('never reads the message: the same text under another class is another failure', () => {
    expect(classifyCallFailure(new Error('Not connected'), facts()).kind).toBe('other');
    expect(classifyCallFailure(new Error('Request timed out'), facts()).kind).toBe('other');
    expect(classifyCallFailure(new SdkError(SdkErrorCode.RequestTimeout, 'Not connected'), facts()).kind).toBe('timeout');
  });

  it('takes a call whose client lost its connection as closed, whatever its error', () => {
    expect(classifyCallFailure(new Error('anything'), facts({ connected: false })).kind).toBe('connection-closed');
  });

  it('puts the total time first, a coded error next, then the run aborting the call', () => {
    const coded = new AnytoolError(ErrorCode.McpConnectFailed, 'no');
    expect(classifyCallFailure(coded, facts({ totalTimeout: 5 }))).toEqual({ kind: 'total-timeout', total: 5 });
    expect(classifyCallFailure(coded, facts({ aborted: true }))).toEqual({ kind: 'coded', error: coded });
    // The SDK rejects a request its signal cancelled with a RequestTimeout, not with the reason.
    expect(classifyCallFailure(new SdkError(SdkErrorCode.RequestTimeout, 'x'), facts({ aborted: true })).kind).toBe('aborted');
    // A server's JSON-RPC error that came before the abort is still the server's.
    expect(classifyCallFailure(new ProtocolError(-1, 'x'), facts({ aborted: true })).kind).toBe('server-error');
  });

  it('summarizes a validator error by its issues', () => {
    const error = Object.assign(new Error('zod'), { issues: [{ code: 'invalid_type', path: ['content'], message: 'Required' }] });
    const failure = classifyCallFailure(error, facts());
    expect(failure.kind).toBe('invalid-result');
    if (failure.kind === 'invalid-result') expect(callFailureError(failure, error, words).code).toBe(ErrorCode.McpInvalidResult);
  });
});

describe('callFailureError', () => {
  it('gives each failure its code, naming the server and the tool', () => {
    const cases: Array<[Parameters<typeof callFailureError>[0], ErrorCode]> = [
      [{ kind: 'total-timeout', total: 5 }, ErrorCode.Timeout],
      [{ kind: 'aborted' }, ErrorCode.Aborted],
      [{ kind: 'timeout' }, ErrorCode.Timeout],
      [{ kind: 'server-error', code: -1, message: 'm' }, ErrorCode.McpProtocolError],
      [{ kind: 'http-status', status: 413 }, ErrorCode.PayloadTooLarge],
      [{ kind: 'http-status', status: 500 }, ErrorCode.McpProtocolError],
      [{ kind: 'result-too-large', size: { size: 20, limit: 10, exact: true } }, ErrorCode.ResultTooLarge],
      [{ kind: 'other' }, ErrorCode.McpProtocolError],
    ];
    for (const [failure, code] of cases) {
      const error = callFailureError(failure, new Error('cause'), words);
      expect(error.code).toBe(code);
      expect(error.message).toContain('"s"');
      expect(error.message).toContain('"t"');
    }
  });

  it('says how to keep a call alive only when it did not ask for progress', () => {
    expect(callFailureError({ kind: 'timeout' }, undefined, words).message).toContain('Progress was not asked for');
    expect(callFailureError({ kind: 'timeout' }, undefined, { ...words, progress: true }).message).not.toContain('Progress was not asked for');
  });
});
