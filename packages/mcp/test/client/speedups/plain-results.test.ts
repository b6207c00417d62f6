import { createHash } from 'node:crypto';
import { Toolset, tool } from '@anytool/core';
import { createMcpServer } from '@anytool/mcp';
import { Client, InMemoryTransport, ProtocolError, type JSONRPCMessage } from '@modelcontextprotocol/client';
import { KNOWN_RESPONSE_DISPATCH, dispatchPlainResults, responseDispatchSource } from '../../../src/client/speedups/plain-results';

/*
 * `dispatchPlainResults` hands a plain result to the request waiting for it without the SDK's
 * schema checks. These tests hold it to what the SDK's own dispatch does, on a real SDK Client
 * and an anytool server over the SDK's in-memory transport.
 */

const echo = tool(({ text }: { text: string }) => `echo: ${text}`, {
  name: 'echo',
  description: 'Echoes the text.',
  parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
});

interface Internals {
  _responseHandlers: Map<number, unknown>;
  _progressHandlers: Map<number, unknown>;
  _timeoutInfo: Map<number, unknown>;
  _onresponse(response: JSONRPCMessage): void;
}

async function connect(client = new Client({ name: 'plain-results', version: '1' })) {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await createMcpServer(new Toolset(echo)).connect(serverSide);
  await client.connect(clientSide);
  const internals = client as unknown as Internals;
  // Counts the answers that take the SDK's way (its onmessage calls the client's _onresponse).
  let sdkAnswers = 0;
  const own = internals._onresponse.bind(client);
  internals._onresponse = (response) => {
    sdkAnswers++;
    own(response);
  };
  const problems: string[] = [];
  dispatchPlainResults(client, (problem) => problems.push(problem));
  return { client, clientSide, internals, problems, sdkAnswers: () => sdkAnswers };
}

describe('dispatchPlainResults (speedups/plain-results.ts)', () => {
  it('gives a plain result to its request without the SDK, and leaves nothing of the request behind', async () => {
    const { client, internals, problems, sdkAnswers } = await connect();
    expect(problems).toEqual([]);
    const result = await client.request(
      { method: 'tools/call', params: { name: 'echo', arguments: { text: 'hi' } } },
      { '~standard': { version: 1, vendor: 'test', validate: (value: unknown) => ({ value }) } },
      { timeout: 60_000, onprogress: () => undefined },
    );
    expect(result).toEqual({ content: [{ type: 'text', text: 'echo: hi' }] });
    expect(sdkAnswers()).toBe(0);
    // As the SDK's own dispatch leaves them: no handler, no timer, no progress handler (the request's own cleanup
    // clears the first two again when it settles; nothing but the dispatch drops the progress handler).
    expect(internals._responseHandlers.size).toBe(0);
    expect(internals._timeoutInfo.size).toBe(0);
    expect(internals._progressHandlers.size).toBe(0);
    // Many calls at once, each answered with its own result.
    const texts = Array.from({ length: 50 }, (_, i) => `call ${i}`);
    const results = await Promise.all(texts.map((text) => client.callTool({ name: 'echo', arguments: { text } })));
    expect(results.map((r) => r.content)).toEqual(texts.map((text) => [{ type: 'text', text: `echo: ${text}` }]));
    expect(sdkAnswers()).toBe(0);
    await client.close();
  });

  it('leaves an error answer, a result with _meta, a string id and an id nobody waits for to the SDK', async () => {
    const { client, clientSide, problems, sdkAnswers } = await connect();
    expect(problems).toEqual([]);
    // An error response: the SDK rejects the request with its ProtocolError.
    await expect(
      client.request({ method: 'no/such/method' }, { '~standard': { version: 1, vendor: 'test', validate: (value: unknown) => ({ value }) } }),
    ).rejects.toBeInstanceOf(ProtocolError);
    expect(sdkAnswers()).toBe(1);
    const errors: string[] = [];
    client.onerror = (error) => errors.push(error.message);
    // A result for an id no request waits for: the SDK reports it.
    clientSide.onmessage!({ jsonrpc: '2.0', id: 9_999, result: {} });
    expect(sdkAnswers()).toBe(2);
    expect(errors).toEqual([expect.stringContaining('unknown message ID')]);
    // A string id and a result with _meta are not plain results: the SDK reads them.
    clientSide.onmessage!({ jsonrpc: '2.0', id: 'listen-1', result: {} });
    clientSide.onmessage!({ jsonrpc: '2.0', id: 9_998, result: { _meta: { note: 1 } } });
    expect(sdkAnswers()).toBe(4);
    await client.close();
  });

  it('keeps the SDK dispatch, with a diagnostic, for a client whose dispatch is not the one checked', async () => {
    class Watching extends Client {
      override _onresponse(response: Parameters<Client['_onresponse']>[0]): void {
        super._onresponse(response);
      }
    }
    const { client, clientSide, problems, sdkAnswers } = await connect(new Watching({ name: 'watching', version: '1' }));
    expect(problems).toEqual([expect.stringContaining('hands answers to requests differently')]);
    const before = clientSide.onmessage;
    expect((await client.callTool({ name: 'echo', arguments: { text: 'hi' } })).content).toEqual([{ type: 'text', text: 'echo: hi' }]);
    expect(sdkAnswers()).toBe(1);
    expect(clientSide.onmessage).toBe(before);
    await client.close();
  });

  it("the SDK's response dispatch is the one it stands in for (a new SDK release fails here until checked)", async () => {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await createMcpServer(new Toolset(echo)).connect(serverSide);
    const client = new Client({ name: 'plain-results', version: '1' });
    await client.connect(clientSide);
    const source = responseDispatchSource(client, clientSide.onmessage!);
    expect(KNOWN_RESPONSE_DISPATCH.has(createHash('sha256').update(source).digest('hex'))).toBe(true);
    await client.close();
  });
});
