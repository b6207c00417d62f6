import { type AnytoolError, ErrorCode, Toolset, tool, type JsonSchema } from '@anytool/core';
import { createMcpServer, serveMcp, type McpServerHandle } from '@anytool/mcp';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { httpClient } from './helpers';
import { probeEventLoop } from '../../../core/test/helpers/event-loop-probe';
import { scaled } from '../../../core/test/helpers/time-scale';

// A served tool's schema is the developer's, but its arguments come from any client: a pattern
// with nested quantifiers checked on JavaScript's backtracking engine held every other client
// (a `ping` waited 4.8 s). Served tools' patterns run on a linear-time engine.
jest.setTimeout(scaled(60_000));

const GAP_BOUND_MS = 100;
/** Generous: the attacker's 23 calls are answered meanwhile; on JavaScript's engine one evil argument held a ping for seconds. */
const PING_BOUND_MS = 1_000;

const evilSchema: JsonSchema = {
  type: 'object',
  properties: { s: { type: 'string', pattern: '^(a+)+$' } },
  patternProperties: { '^(b+)+$': { type: 'string', pattern: '^(c+)+$' } },
};
const evil = (letter: string): string => `${letter.repeat(32)}!`;

const servers: McpServerHandle[] = [];
const clients: Client[] = [];

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

function guarded(name: string, parameters: JsonSchema) {
  return tool(() => 'ran', { name, description: `A tool whose schema has patterns (${name}).`, parameters });
}

function refusal(run: () => unknown): AnytoolError {
  try {
    run();
  } catch (error) {
    return error as AnytoolError;
  }
  throw new Error('expected a refusal');
}

describe('served tools: patterns on a linear-time engine', () => {
  it(`an evil argument settles as invalid while another client's pings answer within ${PING_BOUND_MS} ms, the event loop never held over ${GAP_BOUND_MS} ms`, async () => {
    const server = await serveMcp(new Toolset(guarded('guarded', evilSchema)), { transport: 'http', port: 0 });
    servers.push(server);
    const attacker = (await httpClient(server.url!)).client;
    const other = (await httpClient(server.url!)).client;
    clients.push(attacker, other);

    const pings: number[] = [];
    let attacking = true;
    const pinging = (async () => {
      while (attacking) {
        const started = performance.now();
        await other.ping();
        pings.push(performance.now() - started);
      }
    })();
    const { gaps } = await probeEventLoop(async () => {
      try {
        // A key the key pattern does not match is free of its schema: the call runs.
        const freeKey = await attacker.callTool({ name: 'guarded', arguments: { [evil('b')]: 7 } });
        expect(freeKey.content).toEqual([{ type: 'text', text: 'ran' }]);
        const attacks = [
          { s: evil('a') },
          { bbbb: evil('c') },
          // Many at once: each is as cheap as one.
          ...Array.from({ length: 20 }, (_, i) => ({ s: `${'a'.repeat(30 + i)}!` })),
        ];
        const results = await Promise.all(attacks.map((args) => attacker.callTool({ name: 'guarded', arguments: args })));
        for (const result of results) {
          expect(result.isError).toBe(true);
          expect(JSON.stringify(result.content)).toMatch(/must match pattern/);
        }
        const passing = await attacker.callTool({ name: 'guarded', arguments: { s: 'a'.repeat(32), bbbb: 'c'.repeat(32) } });
        expect(passing.content).toEqual([{ type: 'text', text: 'ran' }]);
      } finally {
        attacking = false;
        await pinging;
      }
    });
    expect(pings.length).toBeGreaterThan(0);
    // A ping waits behind the attacker's calls in the queue, never behind a pattern.
    expect(Math.max(...pings)).toBeLessThan(PING_BOUND_MS);
    expect(gaps.blockedMs).toBeLessThan(GAP_BOUND_MS);
  });

  it.each([
    ['a backreference', { type: 'object', properties: { x: { type: 'string', pattern: '(a)\\1' } } }, '(a)\\\\1', 'a backreference'],
    ['a lookahead', { type: 'object', properties: { x: { type: 'string', pattern: '^(?=a)' } } }, '^(?=a)', 'a lookahead'],
    ['a lookbehind key', { type: 'object', patternProperties: { '(?<=a)b': { type: 'string' } } }, '(?<=a)b', 'a lookbehind'],
  ] as const)('a served tool with %s is refused at start with UNSUPPORTED_PATTERN naming tool and pattern', async (_what, parameters, shown, feature) => {
    const toolset = new Toolset(guarded('backtracks', parameters as JsonSchema), guarded('fine', evilSchema));
    const message = new RegExp(`^tool "backtracks" \\(function .*\\): its schema's pattern "${shown.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}" uses ${feature}`);
    const error = await serveMcp(toolset, { transport: 'http', port: 0 }).then(
      (server) => {
        servers.push(server);
        throw new Error('serveMcp started');
      },
      (refused: unknown) => refused as AnytoolError,
    );
    expect(error.code).toBe(ErrorCode.UnsupportedPattern);
    expect(error.message).toMatch(message);
    const direct = refusal(() => createMcpServer(toolset));
    expect(direct.code).toBe(ErrorCode.UnsupportedPattern);
    expect(direct.message).toMatch(message);
  });

  it('a tool added while serving with a pattern the engine cannot run is reported, and its calls answer an error result', async () => {
    const toolset = new Toolset(guarded('fine', evilSchema));
    const reported: Error[] = [];
    const server = await serveMcp(toolset, { transport: 'http', port: 0, onError: (error) => reported.push(error) });
    servers.push(server);
    toolset.add(guarded('late', { type: 'object', properties: { x: { type: 'string', pattern: '(a)\\1' } } }));
    expect(reported.map((error) => (error as AnytoolError).code)).toEqual([ErrorCode.UnsupportedPattern]);
    const client = (await httpClient(server.url!)).client;
    clients.push(client);
    const result = await client.callTool({ name: 'late', arguments: { x: 'aa' } });
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain('Tool \\"late\\" cannot be called: its definition is broken');
  });
});
