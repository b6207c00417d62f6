// The web app: one page, and three JSON endpoints. Each HTTP request is a step
// of a run: asking starts one (it pauses at the payment), answering resumes it
// from the store, in whichever process gets the request.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ErrorCode, ExecutionContext, isAnytoolError } from '@anytool/core';
import type { Agent, PendingItem, ResumeAnswer, RunResult } from '@anytool/agent';
import { PAGE } from './page.js';
import type { RunOutcomes } from './run-outcomes.js';

/** What the page is sent of a pending item: what to show a person, and what to send back with the answer. */
export type PendingView = Pick<PendingItem, 'id' | 'kind' | 'tool' | 'args' | 'reason' | 'callId' | 'argsDigest' | 'signature'>;

export type RunView =
  { status: 'paused'; runId: string; text: string; pending: PendingView[] } | { status: 'done'; runId: string; stopReason: string; answer: string };

/** The body of `POST /api/runs/:runId/answers`: one person's decision on one pending item. */
interface Decision {
  itemId: string;
  approved: boolean;
  reason?: string;
  signature?: string;
  tool?: string;
  callId?: string;
  argsDigest?: string;
}

const MAX_BODY_BYTES = 16 * 1024;

/** An error of this app's own, shown to the page as it is: a status, a code (lowercase, unlike anytool's `ErrorCode`s) and a message. */
class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** The HTTP status of an error of a run or a resume. */
function statusOf(code: string): number {
  switch (code) {
    case ErrorCode.RunAlreadyResumed:
    case ErrorCode.RunToolsChanged:
      return 409;
    case ErrorCode.ResumeAnswerInvalid:
    case ErrorCode.RunStateInvalid:
      return 400;
    case ErrorCode.ModelFailed:
      return 502;
    default:
      return 500;
  }
}

export class ApprovalApp {
  constructor(
    private readonly agent: Agent,
    private readonly outcomes: RunOutcomes,
    private readonly log: (line: string) => void = (line) => console.log(line),
  ) {}

  /** The `node:http` request listener. */
  readonly handle = (req: IncomingMessage, res: ServerResponse): void => {
    this.route(req).then(
      ({ status, body }) => send(res, status, body),
      (error: unknown) => {
        if (error instanceof HttpError) return send(res, error.status, { error: { code: error.code, message: error.message } });
        if (isAnytoolError(error)) return send(res, statusOf(error.code), { error: { code: error.code, message: error.message } });
        this.log(`error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
        send(res, 500, { error: { code: 'internal', message: 'the server failed; see its log' } });
      },
    );
  };

  private async route(req: IncomingMessage): Promise<{ status: number; body: unknown }> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (req.method === 'GET' && url.pathname === '/') return { status: 200, body: PAGE };
    if (req.method === 'POST' && url.pathname === '/api/ask') return { status: 200, body: await this.ask(await readJson(req)) };
    const run = /^\/api\/runs\/([\w-]{1,200})(\/answers)?$/.exec(url.pathname);
    if (run !== null && req.method === 'GET' && run[2] === undefined) return this.show(run[1]!);
    if (run !== null && req.method === 'POST' && run[2] !== undefined) return { status: 200, body: await this.answer(run[1]!, await readJson(req)) };
    throw new HttpError(404, 'not_found', `${req.method} ${url.pathname}: no such page or endpoint`);
  }

  /** Starts a run for the request the person typed. */
  private async ask(body: unknown): Promise<RunView> {
    const message = (body as { message?: unknown } | undefined)?.message;
    if (typeof message !== 'string' || message.trim() === '' || message.length > 2000)
      throw new HttpError(400, 'bad_request', 'send { "message": "..." } with a request of 1 to 2000 characters');
    // A random run id: it names the run in the store, which any process of the app may be asked about.
    const context = new ExecutionContext({ runId: `run_${randomUUID()}` });
    return this.view(await this.agent.run(message, { context }));
  }

  /** A run as the page shows it after a reload: paused (from the store), finished, or unknown. */
  private async show(runId: string): Promise<{ status: number; body: unknown }> {
    const paused = await this.agent.store!.load(runId);
    if (paused !== undefined) return { status: 200, body: { status: 'paused', runId, text: '', pending: paused.pending.map(pendingView) } satisfies RunView };
    const outcome = await this.outcomes.load(runId);
    if (outcome !== undefined)
      return { status: 200, body: { status: 'done', runId, stopReason: outcome.stopReason, answer: outcome.answer } satisfies RunView };
    throw new HttpError(404, 'unknown_run', `no run "${runId}" is paused or finished here (it may have expired)`);
  }

  /** Resumes the run with one decision: `resume` takes the run from the store, so only one request can. */
  private async answer(runId: string, body: unknown): Promise<RunView> {
    const decision = readDecision(body);
    const answer: ResumeAnswer = { approved: decision.approved };
    if (decision.reason !== undefined && decision.reason !== '') answer.reason = decision.reason;
    // The signature and the binding fields the page got with the item: the answer fits that item only.
    for (const field of ['signature', 'tool', 'callId', 'argsDigest'] as const) if (decision[field] !== undefined) answer[field] = decision[field];
    const result = await this.agent.resume(runId, { [decision.itemId]: answer });
    this.log(
      `run ${runId}: ${decision.approved ? 'approved' : 'denied'} ${decision.itemId}, the run ${result.stopReason === 'interrupted' ? 'paused again' : 'finished'}`,
    );
    return this.view(result);
  }

  private async view(result: RunResult): Promise<RunView> {
    const runId = result.context.runId;
    if (result.stopReason === 'interrupted') {
      const pending = result.interruptions!.map(pendingView);
      this.log(`run ${runId}: paused for ${pending.map((item) => `${item.tool} ${JSON.stringify(item.args)}`).join(', ')}`);
      return { status: 'paused', runId, text: result.text, pending };
    }
    await this.outcomes.save({ runId, stopReason: result.stopReason, answer: result.text, finishedAt: new Date().toISOString() });
    return { status: 'done', runId, stopReason: result.stopReason, answer: result.text };
  }
}

function pendingView(item: PendingItem): PendingView {
  const view: PendingView = {
    id: item.id,
    kind: item.kind,
    tool: item.tool,
    args: shownArgs(item.args),
    reason: item.reason,
    callId: item.callId,
    argsDigest: item.argsDigest,
  };
  if (item.signature !== undefined) view.signature = item.signature;
  return view;
}

/** The arguments as a person reads them: a model that sends them as JSON text (Chat Completions does) has them parsed. */
function shownArgs(args: unknown): unknown {
  if (typeof args !== 'string') return args;
  try {
    return JSON.parse(args) as unknown;
  } catch {
    return args;
  }
}

function readDecision(body: unknown): Decision {
  const given = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  if (typeof given['itemId'] !== 'string' || typeof given['approved'] !== 'boolean')
    throw new HttpError(400, 'bad_request', 'send { "itemId": "...", "approved": true | false, "signature": "..." } for one pending item');
  const decision: Decision = { itemId: given['itemId'], approved: given['approved'] };
  for (const field of ['reason', 'signature', 'tool', 'callId', 'argsDigest'] as const) {
    const value = given[field];
    if (value === undefined) continue;
    if (typeof value !== 'string') throw new HttpError(400, 'bad_request', `"${field}" must be a string`);
    decision[field] = value;
  }
  return decision;
}

/**
 * The request's JSON body. Only `application/json` is read: a form on another
 * site cannot send that without the browser asking this server first (CORS),
 * which it never allows, so another site cannot approve a payment here.
 */
async function readJson(req: IncomingMessage): Promise<unknown> {
  if (!/^application\/json\b/.test(req.headers['content-type'] ?? '')) throw new HttpError(415, 'unsupported_media_type', 'send the body as application/json');
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new HttpError(413, 'too_large', `the body is over ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
  } catch {
    throw new HttpError(400, 'bad_request', 'the body is not JSON');
  }
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const html = typeof body === 'string';
  res.writeHead(status, {
    'content-type': html ? 'text/html; charset=utf-8' : 'application/json',
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    ...(html ? { 'content-security-policy': "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'" } : {}),
  });
  res.end(html ? body : JSON.stringify(body));
}
