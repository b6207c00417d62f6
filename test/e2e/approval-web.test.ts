// examples/approval-web in a real browser: the built example runs as a child
// process on 127.0.0.1; a headless chromium (Debian's package, driven by
// playwright-core) asks for a payment, sees the approval card, and answers it
// after the server process was killed and started again. The payment lands in
// the ledger file exactly once, whatever the clicks; a denied one never does.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { scaled } from '../../packages/core/test/helpers/time-scale';

jest.setTimeout(scaled(60_000));

const root = join(__dirname, '..', '..');
const main = join(root, 'examples', 'dist', 'approval-web', 'main.js');

/** Debian's chromium (what .ci/run installs), or the one CHROMIUM_PATH names. */
const browserPath = [process.env['CHROMIUM_PATH'], '/usr/bin/chromium', '/usr/bin/chromium-browser'].find(
  (path): path is string => path !== undefined && path !== '' && existsSync(path),
);

interface LedgerEntry {
  paymentId: string;
  to: string;
  amountEur: number;
  memo: string;
  callId: string;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/** The example's server, a child process: started, killed, and started again on the same port and data. */
class ExampleServer {
  private child: ChildProcess | undefined;
  /** Everything the processes printed, for a failure's message. */
  output = '';

  constructor(
    readonly port: number,
    readonly dataDir: string,
  ) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(this.port), HOST: '127.0.0.1', APPROVAL_WEB_DATA: this.dataDir };
    // The scripted provider, whatever the machine's environment says.
    for (const key of ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'OPENAI_MODEL', 'APPROVAL_WEB_SECRET']) delete env[key];
    const child = spawn(process.execPath, [main], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the example did not start in time:\n${this.output}`)), scaled(15_000));
      child.stderr!.on('data', (chunk: Buffer) => (this.output += chunk.toString()));
      child.stdout!.on('data', (chunk: Buffer) => {
        this.output += chunk.toString();
        if (this.output.includes(`listening on ${this.url}`)) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`the example exited (${code ?? signal}) before it listened:\n${this.output}`));
      });
    });
  }

  /** Kills the process the hard way (a crash, a deploy that does not wait) and waits until it is gone. */
  async kill(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGKILL');
    await exited;
  }

  async restart(): Promise<void> {
    await this.kill();
    await this.start();
  }

  ledger(): LedgerEntry[] {
    const path = join(this.dataDir, 'ledger.jsonl');
    if (!existsSync(path)) return [];
    return readFileSync(path, 'utf8')
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as LedgerEntry);
  }

  /** The paused runs on disk. */
  pausedRuns(): string[] {
    const dir = join(this.dataDir, 'runs');
    return existsSync(dir) ? readdirSync(dir) : [];
  }
}

/** Types a request, sends it, and waits for its approval card. */
async function ask(page: Page, request: string): Promise<void> {
  await page.fill('#message', request);
  await page.click('#ask');
  await page.locator('.card .approve').waitFor();
}

/** The body the page sends to answer the card shown, read from the card's data as the server sent it. */
async function shownItem(page: Page, server: ExampleServer): Promise<{ runId: string; item: Record<string, string> }> {
  const runId = (await page.getAttribute('body', 'data-run'))!;
  const response = await fetch(`${server.url}/api/runs/${runId}`);
  const view = (await response.json()) as { pending: Array<Record<string, string>> };
  return { runId, item: view.pending[0]! };
}

if (browserPath === undefined) {
  test.skip('examples/approval-web in a browser: no chromium found (apt-get install chromium, as .ci/run does, or set CHROMIUM_PATH)', () => {});
} else {
  describe('examples/approval-web in a headless chromium', () => {
    let browser: Browser;
    let server: ExampleServer;
    let dataDir: string;
    let page: Page;

    beforeAll(async () => {
      if (!existsSync(main)) throw new Error(`${main} is missing: run \`npm run build\` (npm test does) before this test`);
      dataDir = mkdtempSync(join(tmpdir(), 'anytool-approval-web-'));
      server = new ExampleServer(await freePort(), dataDir);
      const [launched] = await Promise.all([chromium.launch({ executablePath: browserPath, headless: true }), server.start()]);
      browser = launched;
    });

    afterAll(async () => {
      await browser?.close();
      await server?.kill();
      if (dataDir !== undefined) rmSync(dataDir, { recursive: true, force: true });
    });

    beforeEach(async () => {
      page = await browser.newPage();
      await page.goto(server.url);
    });

    afterEach(async () => {
      await page.close();
    });

    it('shows the payment for approval, survives a killed server, and pays once when approved', async () => {
      await ask(page, 'Send 40 EUR to Alice for the March invoice');
      await expect(page.textContent('.card .tool')).resolves.toBe('send_payment');
      expect(JSON.parse((await page.textContent('.card .args'))!)).toEqual({ to: 'Alice', amountEur: 40, memo: 'the March invoice' });
      await expect(page.textContent('.card .reason')).resolves.toMatch(/tool "send_payment" needs approval/);
      // Paused: nothing paid yet, and the run is on disk, not only in the process about to die.
      expect(server.ledger()).toEqual([]);
      expect(server.pausedRuns()).toHaveLength(1);

      await server.restart();
      await page.click('.card .approve');
      await page.locator('#answer').waitFor();
      await expect(page.textContent('#answer')).resolves.toMatch(/^Sent 40 EUR to Alice \(payment P-[0-9a-f]{8}\)\. Your balance is now 960 EUR\.$/);
      const ledger = server.ledger();
      expect(ledger).toEqual([expect.objectContaining({ to: 'Alice', amountEur: 40, memo: 'the March invoice' })]);
      await expect(page.textContent('#answer')).resolves.toContain(ledger[0]!.paymentId);
      expect(server.pausedRuns()).toEqual([]);

      // A reload shows how the run ended, and runs nothing again.
      await page.reload();
      await page.locator('#answer').waitFor();
      await expect(page.textContent('#answer')).resolves.toContain(ledger[0]!.paymentId);
      expect(server.ledger()).toHaveLength(1);
    });

    it('restores the card from the store after a restart and a reload, and pays nothing when denied', async () => {
      const before = server.ledger().length;
      await ask(page, 'Pay 25 EUR to Bob for lunch');
      await server.restart();
      // The new process shows the run from the store: the page itself starts over.
      await page.reload();
      await page.locator('.card .deny').waitFor();
      expect(JSON.parse((await page.textContent('.card .args'))!)).toEqual({ to: 'Bob', amountEur: 25, memo: 'lunch' });
      await page.fill('.card .deny-reason', 'not this month');
      await page.click('.card .deny');
      await page.locator('#answer').waitFor();
      await expect(page.textContent('#answer')).resolves.toMatch(
        /^The payment was not made\. The call to tool "send_payment" was not approved \(not this month\)/,
      );
      expect(server.ledger()).toHaveLength(before);
      expect(server.ledger().some((entry) => entry.to === 'Bob')).toBe(false);
      expect(server.pausedRuns()).toEqual([]);
    });

    it('pays once on a double click, and refuses a second submit and a forged answer', async () => {
      const before = server.ledger().length;
      await ask(page, 'Send 5 EUR to Carol');
      await page.dblclick('.card .approve');
      await page.locator('#answer').waitFor();
      await expect(page.textContent('#answer')).resolves.toMatch(/^Sent 5 EUR to Carol /);
      expect(server.ledger().filter((entry) => entry.to === 'Carol')).toHaveLength(1);

      await ask(page, 'Send 7 EUR to Dan');
      const { runId, item } = await shownItem(page, server);
      const answers = `/api/runs/${runId}/answers`;
      const body = {
        itemId: item['id'],
        approved: true,
        signature: item['signature'],
        tool: item['tool'],
        callId: item['callId'],
        argsDigest: item['argsDigest'],
      };
      // From the page, as a script on it would send them: a forged signature first, then the right answer twice at once.
      const replies = await page.evaluate(
        async ({ answers, body }) => {
          const post = async (payload: unknown) => {
            const response = await fetch(answers, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(payload) });
            return { status: response.status, body: (await response.json()) as { status?: string; error?: { code: string } } };
          };
          const forged = await post({ ...body, signature: '0'.repeat(64) });
          const twice = await Promise.all([post(body), post(body)]);
          const late = await post(body);
          return { forged, twice, late };
        },
        { answers, body },
      );
      expect(replies.forged).toEqual({ status: 400, body: { error: expect.objectContaining({ code: 'RESUME_ANSWER_INVALID' }) } });
      expect(replies.twice.map((reply) => reply.status).sort()).toEqual([200, 409]);
      expect(replies.twice.find((reply) => reply.status === 200)!.body).toMatchObject({ status: 'done', answer: expect.stringMatching(/^Sent 7 EUR to Dan /) });
      expect(replies.twice.find((reply) => reply.status === 409)!.body.error!.code).toBe('RUN_ALREADY_RESUMED');
      expect(replies.late).toMatchObject({ status: 409, body: { error: { code: 'RUN_ALREADY_RESUMED' } } });
      expect(server.ledger().filter((entry) => entry.to === 'Dan')).toHaveLength(1);
      expect(server.ledger()).toHaveLength(before + 2);

      // The card's own Approve, clicked after the run finished elsewhere, says so and pays nothing.
      await page.click('.card .approve');
      await page.locator('#error').waitFor();
      await expect(page.getAttribute('#error', 'data-code')).resolves.toBe('RUN_ALREADY_RESUMED');
      expect(server.ledger()).toHaveLength(before + 2);
    });
  });
}
