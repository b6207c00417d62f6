// An agent behind a web page, whose payments wait for a person's approval.
// The run pauses at the payment; its state goes to a store on disk; the
// person's Approve or Deny is a second request that resumes it, in this process
// or in the next one after a restart.
//
//   npm run build && node examples/dist/approval-web/main.js
//
// Environment: PORT (3000) and HOST (127.0.0.1) to listen on; APPROVAL_WEB_DATA,
// the directory of the paused runs, the ledger and the signing secret (a
// directory under the system's temporary one by default); APPROVAL_WEB_SECRET,
// the secret that signs pending items (else one is made and kept in that
// directory). With OPENAI_API_KEY (or OPENAI_BASE_URL for any OpenAI-compatible
// server; OPENAI_MODEL picks the model) a real model runs; without, the model is
// the scripted provider of this example, which speaks the same wire format.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent } from '@anytool/agent';
import { OpenAIModel } from '@anytool/agent/openai';
import { ApprovalApp } from './app.js';
import { FileRunStore } from './file-run-store.js';
import { paymentTools } from './payments.js';
import { RunOutcomes } from './run-outcomes.js';
import { SCRIPTED_MODEL, startScriptedProvider, type ScriptedProvider } from './scripted-provider.js';

const env = process.env;
const dataDir = env['APPROVAL_WEB_DATA'] ?? join(tmpdir(), 'anytool-approval-web');
mkdirSync(dataDir, { recursive: true, mode: 0o700 });

/**
 * The secret that signs pending items. It must be the same in every process
 * that resumes runs (and after a restart): an item signed by one process is
 * answered in another. A real deployment reads it from its secret store.
 */
function signingSecret(): string {
  if (env['APPROVAL_WEB_SECRET'] !== undefined) return env['APPROVAL_WEB_SECRET'];
  const file = join(dataDir, 'signing-secret');
  if (!existsSync(file)) writeFileSync(file, randomBytes(32).toString('hex'), { mode: 0o600, flag: 'wx' });
  return readFileSync(file, 'utf8').trim();
}

let provider: ScriptedProvider | undefined;
let model: OpenAIModel;
if (env['OPENAI_API_KEY'] || env['OPENAI_BASE_URL']) {
  model = new OpenAIModel({
    model: env['OPENAI_MODEL'] ?? 'gpt-4.1-mini',
    apiKey: env['OPENAI_API_KEY'] || 'unused-by-local-servers',
    ...(env['OPENAI_BASE_URL'] ? { baseURL: env['OPENAI_BASE_URL'] } : {}),
  });
} else {
  provider = await startScriptedProvider();
  model = new OpenAIModel({ model: SCRIPTED_MODEL, apiKey: 'unused-by-the-scripted-provider', baseURL: provider.baseURL, maxRetries: 0 });
}

const agent = new Agent({
  name: 'payments-desk',
  model,
  tools: paymentTools(join(dataDir, 'ledger.jsonl')),
  instructions:
    'You send payments for the user. Check the balance with get_balance, then call send_payment once with the payee, the amount in EUR and a memo (empty if none). Then say in one sentence what was sent, or why nothing was.',
  // A call that needs approval stops the run; the page asks the person.
  approve: 'pause',
  signingSecret: signingSecret(),
  store: new FileRunStore(join(dataDir, 'runs')),
  maxSteps: 6,
});

const app = new ApprovalApp(agent, new RunOutcomes(join(dataDir, 'outcomes')));
const server = createServer(app.handle);
const port = Number(env['PORT'] ?? 3000);
const host = env['HOST'] ?? '127.0.0.1';
server.listen(port, host, () => {
  const { port: bound } = server.address() as AddressInfo;
  console.log(
    `approval-web listening on http://${host}:${bound} (model ${model.name}${provider === undefined ? '' : ' on the scripted provider'}; data in ${dataDir})`,
  );
});

function stop(): void {
  server.close();
  server.closeAllConnections();
  void provider?.close();
}
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
