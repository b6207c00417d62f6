import { CallToolResultSchema, ResultSchema } from '@modelcontextprotocol/core';
import { CALL_RESULT_SCHEMA, checkCallResult } from '../../src/client/call-result';

// Results as they come off the wire (JSON text, so an own "__proto__" key is possible), the plain ones checkCallResult
// builds by hand and every kind next to them that must go through the SDK's schema.
const WIRE = [
  '{"content":[{"type":"text","text":"echo: hello"}]}',
  '{"content":[{"type":"text","text":"a"},{"type":"text","text":""}],"isError":true}',
  '{"isError":false,"content":[{"text":"key order","type":"text"}]}',
  '{"content":[]}',
  '{}',
  '{"content":[{"type":"text","text":"x","annotations":{"priority":1}}]}',
  '{"content":[{"type":"text","text":"x","extra":1}]}',
  '{"content":[{"type":"text","text":"x"}],"structuredContent":{"a":1}}',
  '{"content":[{"type":"text","text":"x"}],"resultType":"complete"}',
  '{"content":[{"type":"text","text":"x"}],"_meta":{"progressToken":1}}',
  '{"content":[{"type":"image","data":"aGk=","mimeType":"image/png"}]}',
  '{"content":[{"type":"text","text":"x"},{"type":"resource_link","uri":"file:///a","name":"a"}]}',
  '{"content":[{"type":"text","text":"x"}],"__proto__":{"isError":true}}',
  '{"content":[{"type":"text","text":"x","__proto__":{"y":1}}]}',
];
// Results the schema refuses: checkCallResult must refuse them too, never pass them by hand.
const BAD = [
  '{"content":[{"type":"text","text":5}]}',
  '{"content":[{"type":"text"}]}',
  '{"content":{"type":"text","text":"x"}}',
  '{"content":[{"type":"text","text":"x"}],"isError":"yes"}',
  '{"content":[null]}',
  '{"content":[["text","x"]]}',
  '{"content":[{"type":"text","text":"x"}],"isError":null}',
  '{"content":[{"__proto__":{"type":"text"},"text":"x"}]}',
];

describe('checkCallResult', () => {
  it.each(WIRE)('gives what CallToolResultSchema gives, keys in its order: %s', (text) => {
    const notes: string[] = [];
    const checked = checkCallResult(JSON.parse(text), 'Tool "t"', (note) => notes.push(note));
    const expected = CallToolResultSchema.parse(JSON.parse(text));
    expect(JSON.stringify(checked)).toBe(JSON.stringify(expected));
    expect(checked).toEqual(expected);
    expect(Object.getPrototypeOf(checked)).toBe(Object.prototype);
    expect(notes).toEqual([]);
  });

  it('gives a fresh object: the parts of the result it was given are not shared', () => {
    const result = JSON.parse('{"content":[{"type":"text","text":"a"}],"isError":false}');
    const checked = checkCallResult(result, 'Tool "t"', () => undefined);
    expect(checked).not.toBe(result);
    expect(checked.content).not.toBe(result.content);
    expect(checked.content[0]).not.toBe(result.content[0]);
  });

  it.each(BAD)('refuses what the schema refuses, naming the problem: %s', (text) => {
    expect(CallToolResultSchema.safeParse(JSON.parse(text)).success).toBe(false);
    expect(() => checkCallResult(JSON.parse(text), 'Tool "t" on MCP server "s"', () => undefined)).toThrow(
      /Tool "t" on MCP server "s" returned a result that is not valid MCP: /,
    );
  });
});

describe('CALL_RESULT_SCHEMA', () => {
  const cases = [...WIRE, ...BAD, '[]', 'null', '"text"', '5', '{"_meta":"not an object"}', '{"_meta":{"progressToken":{}}}'];

  it.each(cases)('passes and refuses what ResultSchema does, with the same value: %s', async (text) => {
    const ours = await CALL_RESULT_SCHEMA['~standard'].validate(JSON.parse(text));
    const sdk = await ResultSchema['~standard'].validate(JSON.parse(text));
    expect(ours.issues === undefined).toBe(sdk.issues === undefined);
    if (ours.issues === undefined && sdk.issues === undefined) expect(JSON.stringify(ours.value)).toBe(JSON.stringify(sdk.value));
    else expect(ours.issues).toEqual(sdk.issues);
  });
});
