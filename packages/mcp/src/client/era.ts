import type { ConnectOptions, DiscoverResult, VersionNegotiationOptions } from '@modelcontextprotocol/client';

/*
 * The protocol era of a server. MCP has two shapes: the 2025 one (`initialize`,
 * sessions, server-to-client requests) and the 2026-07-28 one (`server/discover`,
 * no sessions, a `_meta` envelope on every request, `input_required` results in
 * place of server-to-client requests). The SDK's one `Client` speaks both; which
 * one a server speaks is found once, by a `server/discover` probe, and kept for
 * the life of the connection, so a restart or a new HTTP session does not probe
 * again.
 */

/** Which era to speak to a server: found by probing (`auto`, the default), or pinned. */
export type McpProtocol = 'auto' | 'legacy' | 'modern';

/** The era a server was found to speak. */
export type McpEra = 'legacy' | 'modern';

/** The modern revision this client speaks. */
export const MODERN_REVISION = '2026-07-28';

/** What is remembered of a server once connected: its era and, when modern, what `server/discover` said. */
export interface EraVerdict {
  era: McpEra;
  discover?: DiscoverResult;
  /** How the era was found, for the diagnostic. */
  how: 'probed' | 'pinned';
}

/** The longest a `server/discover` probe waits for an answer (a legacy stdio server may never answer it). */
const MAX_PROBE_MS = 10_000;

/**
 * How a start spends its budget: the probe gets a third of it (at most 10 s),
 * `initialize` (or, when modern, nothing more) the rest. The SDK applies a
 * connect's timeout to the probe and then again to `initialize`, so without the
 * split a silent legacy server would take twice the budget.
 */
export function startBudget(startTimeout: number, probing: boolean, signingIn = false): { probe: number; connect: number } {
  if (!probing) return { probe: 0, connect: startTimeout };
  // The first request may wait for a user to sign in (OAuth): the probe gets the whole budget.
  if (signingIn) return { probe: startTimeout, connect: startTimeout };
  const probe = Math.max(1, Math.min(MAX_PROBE_MS, Math.floor(startTimeout / 3)));
  return { probe, connect: Math.max(1, startTimeout - probe) };
}

/** The SDK's negotiation option for a server not connected before. */
export function negotiationFor(protocol: McpProtocol, probeMs: number): VersionNegotiationOptions {
  if (protocol === 'legacy') return { mode: 'legacy' };
  return { mode: protocol === 'modern' ? { pin: MODERN_REVISION } : 'auto', probe: { timeoutMs: probeMs } };
}

/** The verdict as the SDK's `connect(transport, { prior })` takes it: no probe on a server already known. */
export function priorOf(verdict: EraVerdict): NonNullable<ConnectOptions['prior']> {
  return verdict.era === 'modern' && verdict.discover !== undefined ? { kind: 'modern', discover: verdict.discover } : { kind: 'legacy' };
}

/**
 * What a server pinned to the modern era is taken to have said when it answers
 * no `server/discover` (the method is optional to call; some modern servers
 * never got it): the revision, and the tools capability (a server without
 * tools answers `tools/list` with an error, which then says so).
 */
export function assumedDiscover(): DiscoverResult {
  return { supportedVersions: [MODERN_REVISION], capabilities: { tools: { listChanged: true } } } as unknown as DiscoverResult;
}

/** The diagnostic that says which era a server speaks and how that was found. */
export function describeVerdict(verdict: EraVerdict, assumed: boolean): string {
  if (verdict.era === 'legacy') {
    return verdict.how === 'pinned'
      ? 'speaks the 2025 protocol (legacy era: initialize and sessions), as pinned by "protocol": "legacy"'
      : 'speaks the 2025 protocol (legacy era: initialize and sessions); it did not answer the server/discover probe as a 2026-07-28 server';
  }
  if (assumed)
    return `speaks the ${MODERN_REVISION} protocol (modern era), as pinned by "protocol": "modern"; it answered no server/discover, so its capabilities are taken from what it answers`;
  return `speaks the ${MODERN_REVISION} protocol (modern era: server/discover, no sessions)${verdict.how === 'pinned' ? ', as pinned by "protocol": "modern"' : ''}`;
}
