import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { EXAMPLE_TOOLS, MCP_DIST, ROOT, requireBuilt, startHttpChild, stopChild, waitFor } from './helpers';
import { scaled } from '../../../core/test/helpers/time-scale';

// `anytool serve` with authentication, as a user runs it after `npm run build`.
jest.setTimeout(scaled(60_000));

const ANYTOOL = join(ROOT, 'packages', 'schema', 'bin', 'anytool.mjs');
const MODULE = 'examples/dist/mcp-server/tools.js';
const TOKEN = 'cli-test-token-0123456789';

let dir: string;
beforeAll(() => {
  requireBuilt(ANYTOOL, MCP_DIST, EXAMPLE_TOOLS);
  dir = mkdtempSync(join(tmpdir(), 'anytool-auth-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function runToEnd(args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('exit', (code) => resolve({ code, stderr }));
  });
}

it('refuses a non-loopback address without auth, in one line naming --allow-unauthenticated', async () => {
  const { code, stderr } = await runToEnd([ANYTOOL, 'serve', MODULE, '--http', '--host', '0.0.0.0', '--port', '0']);
  expect(code).toBe(2);
  expect(stderr.trim().split('\n')).toHaveLength(1);
  expect(stderr).toContain('refusing to serve without authentication on 0.0.0.0');
  expect(stderr).toContain('--allow-unauthenticated');
});

it('refuses --jwt-issuer on a wildcard address without --resource, naming it', async () => {
  const { code, stderr } = await runToEnd([ANYTOOL, 'serve', MODULE, '--http', '--host', '0.0.0.0', '--port', '0', '--jwt-issuer', 'https://id.example.com']);
  expect(code).toBe(2);
  expect(stderr).toContain('--jwt-issuer on 0.0.0.0 (every interface) needs --resource');
});

it('serves with a tokens file: says so at start, and answers only the token holder', async () => {
  const file = join(dir, 'tokens.json');
  writeFileSync(file, JSON.stringify([{ token: TOKEN, subject: 'ci', scopes: [] }]), { mode: 0o600 });
  const server = await startHttpChild([ANYTOOL, 'serve', MODULE, '--http', '--port', '0', '--tokens-file', file]);
  try {
    await waitFor(() => server.stderr().includes('anytool serve: tools: '), 10_000, 'the tools line');
    expect(server.stderr()).toContain(`anytool serve: auth: 1 static token, resource ${server.url}`);
    expect(server.stderr()).toMatch(/anytool serve: tools: \S+/);

    const refused = await fetch(server.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: '{}',
    });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toContain('resource_metadata=');

    const client = new Client({ name: 'cli-auth', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }));
    try {
      const { tools } = await client.request({ method: 'tools/list', params: {} });
      expect(tools.length).toBeGreaterThan(0);
    } finally {
      await client.close();
    }
  } finally {
    await stopChild(server.child, server.exited);
  }
});

it('a tokens file that is not JSON stops the start without showing any of it; one others can read is warned of', async () => {
  const file = join(dir, 'broken-tokens.json');
  writeFileSync(file, '[{token: "sk-live-SECRET-0123456789", "subject": "a"}]', { mode: 0o644 });
  chmodSync(file, 0o644);
  const { code, stderr } = await runToEnd([ANYTOOL, 'serve', MODULE, '--http', '--port', '0', '--tokens-file', file]);
  expect(code).toBe(2);
  expect(stderr).toContain(`--tokens-file ${file} is not valid JSON (line 1, column 3)`);
  expect(stderr).not.toContain('sk-live');
  if (process.platform !== 'win32') expect(stderr).toContain(`--tokens-file ${file} can be read by other users (mode 644); make it owner-only: chmod 600`);
});

it('an unauthenticated loopback server says so at start', async () => {
  const server = await startHttpChild([ANYTOOL, 'serve', MODULE, '--http', '--port', '0']);
  try {
    await waitFor(() => server.stderr().includes('anytool serve: tools: '), 10_000, 'the tools line');
    expect(server.stderr()).toContain('anytool serve: auth: none');
  } finally {
    await stopChild(server.child, server.exited);
  }
});
