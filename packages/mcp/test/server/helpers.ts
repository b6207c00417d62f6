import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { Client, type ClientOptions } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { scaled } from '../../../core/test/helpers/time-scale';

export const ROOT = join(__dirname, '..', '..', '..', '..');
export const EXAMPLE_MAIN = join(ROOT, 'examples', 'dist', 'mcp-server', 'main.js');
export const EXAMPLE_TOOLS = join(ROOT, 'examples', 'dist', 'mcp-server', 'tools.js');
export const MCP_DIST = join(ROOT, 'packages', 'mcp', 'dist', 'esm', 'index.js');

/** Tests that run the compiled example need `npm run build` (which `npm test` does first). */
export function requireBuilt(...files: string[]): void {
  for (const file of files) {
    if (!existsSync(file)) throw new Error(`${file} is missing: run \`npm run build\` first (\`npm test\` builds before it tests)`);
  }
}

/** An official SDK client connected over streamable HTTP. */
export async function httpClient(url: string, options: ClientOptions = {}): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const client = new Client({ name: 'sdk-test-client', version: '1.0.0' }, options);
  const transport = new StreamableHTTPClientTransport(new URL(url));
  await client.connect(transport);
  return { client, transport };
}

/** Resolves once `check` holds (polling), or rejects after `ms` (scaled for a slow machine). */
export async function waitFor(check: () => boolean, ms = 10_000, what = 'condition'): Promise<void> {
  const until = Date.now() + scaled(ms);
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Starts a node script and waits until its stderr shows an http URL; returns the URL. */
export async function startHttpChild(
  args: string[],
  cwd = ROOT,
  env?: NodeJS.ProcessEnv,
): Promise<{ child: ChildProcessWithoutNullStreams; url: string; stderr: () => string; exited: Promise<number | null> }> {
  const child = spawn(process.execPath, args, env === undefined ? { cwd, stdio: 'pipe' } : { cwd, stdio: 'pipe', env });
  let stderr = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`no URL on stderr after ${scaled(20_000)} ms:\n${stderr}`));
    }, scaled(20_000));
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = /(http:\/\/\S+\/mcp)/.exec(stderr);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${String(code)} before serving:\n${stderr}`));
    });
  });
  return { child, url, stderr: () => stderr, exited };
}

/** Stops a child (SIGTERM, then SIGKILL) and waits for it to exit; returns its exit code. */
export async function stopChild(child: ChildProcessWithoutNullStreams, exited: Promise<number | null>): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  const code = await exited;
  clearTimeout(timer);
  return code;
}

/** A raw HTTP request (fetch cannot set the Host header); resolves to the status and body. */
export function rawRequest(url: string, method: string, headers: Record<string, string>, body?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method, headers }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * Makes the client see a `tools/call` answered with a task as a complete result whose text is
 * `{"created": <the task result>}`: the SDK client would otherwise follow the task itself.
 */
export function answerTaskCreation<M extends object>(transport: { onmessage?: ((message: M) => void) | undefined }): void {
  const deliver = transport.onmessage!;
  transport.onmessage = (message) => {
    const result = (message as { result?: Record<string, unknown> }).result;
    if (result?.['resultType'] !== 'task') return deliver(message);
    deliver({ ...message, result: { resultType: 'complete', content: [{ type: 'text', text: JSON.stringify({ created: result }) }] } } as M);
  };
}
