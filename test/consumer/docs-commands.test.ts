// The shell commands of the docs, run as a reader runs them. Every `sh` block of docs/*.md and README.md is
// either run here, line by line in a project outside the repository, or says why not in an HTML comment right
// before it (`<!-- not run: the reason -->`, as test/e2e/docs.test.ts asks of code blocks): a command that needs
// a network service, an API key or a checkout of the repository, naming the test that runs it instead. A doc
// command that fails as written fails here.
//
// docs/use-in-your-project.md is run whole: from `mkdir my-tools` to serving its tools, with the page's
// TypeScript files (blocks starting `// src/<file>.ts`) written where the page says, and the `@anytool/*`
// packages installed from their packed tarballs (they are not published yet).
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { packed, removeScratch, root, run, scratch, userEnv } from './project';

jest.setTimeout(300_000);

interface ShellBlock {
  page: string;
  line: number;
  code: string;
  notRun?: string;
}

interface FileBlock {
  page: string;
  line: number;
  path: string;
  code: string;
}

const pages = [
  ...readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
  'README.md',
].sort();

/** The `sh` blocks of a page, and its code blocks that name their file on their first line. */
function blocksOf(page: string): { shell: ShellBlock[]; files: FileBlock[] } {
  const lines = readFileSync(join(root, page), 'utf8').split('\n');
  const shell: ShellBlock[] = [];
  const files: FileBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\w*)\s*$/.exec(lines[i]!);
    if (open === null) continue;
    const end = lines.indexOf('```', i + 1);
    const code = lines.slice(i + 1, end).join('\n');
    if (['sh', 'bash', 'shell'].includes(open[1]!)) {
      const note = /^\s*<!--\s*not run:\s*(.*?)\s*-->\s*$/.exec(lines[i - 1] ?? '');
      shell.push({ page, line: i + 1, code, ...(note === null ? {} : { notRun: note[1]! }) });
    } else {
      const path = /^\/\/ (src\/[\w./-]+\.ts)$/.exec(lines[i + 1] ?? '');
      if (path !== null) files.push({ page, line: i + 1, path: path[1]!, code });
    }
    i = end;
  }
  return { shell, files };
}

/** The pages run whole here. */
const RUN = ['docs/use-in-your-project.md'];

test('every shell block of the docs is run here, or says why not', () => {
  const unexplained: string[] = [];
  for (const page of pages) {
    if (RUN.includes(page)) continue;
    for (const block of blocksOf(page).shell) if (block.notRun === undefined) unexplained.push(`${page}:${block.line}: ${block.code.split('\n')[0]}`);
  }
  // Each block needs `<!-- not run: why -->` right before it, or its page in RUN (and a way to run it here).
  expect(unexplained).toEqual([]);
});

describe('docs/use-in-your-project.md, run as written', () => {
  let base: string | undefined;
  let tarballs: Record<string, string> = {};
  let cwd = '';
  const { shell, files } = blocksOf('docs/use-in-your-project.md');

  beforeAll(async () => {
    base = scratch();
    tarballs = await packed(join(base, 'packs'));
    cwd = join(base, 'reader');
    mkdirSync(cwd);
  }, 600_000);

  afterAll(() => removeScratch(base));

  /** A command line as typed: its comment left out, the unpublished `@anytool/*` names as their tarballs. */
  const typed = (line: string): string =>
    line
      .replace(/\s+#.*$/, '')
      .replace(/(?<=\s)@anytool\/(core|schema|mcp|agent)(?=\s|$)/g, (name) => tarballs[name]!)
      .trim();

  /** Runs one line in the reader's folder; a `cd` in it moves the reader. */
  async function runLine(line: string): Promise<void> {
    const command = typed(line);
    if (/\bserve\b.*--http\b/.test(command)) return serveOverHttp(command);
    // The folder the line ends in, written after it, for the next line to start there.
    const ran = await run('sh', ['-c', `set -e\n${command}\npwd > '${join(base!, 'cwd')}'`], cwd, { input: '', env: userEnv() });
    if (ran.code !== 0) throw new Error(`\`${line}\` exited ${ran.code}\n--- stdout\n${ran.stdout}\n--- stderr\n${ran.stderr}`);
    cwd = readFileSync(join(base!, 'cwd'), 'utf8').trim();
  }

  /** A server over HTTP runs until stopped: it passes once it says where it listens and answers there. */
  async function serveOverHttp(command: string): Promise<void> {
    const child = spawn('sh', ['-c', `exec ${command.replace('--http', '--http --port 0')}`], {
      cwd,
      env: userEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
      // Its own process group: npx starts the server as a child of its own, and both are stopped.
      detached: true,
    });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let output = '';
        const read = (chunk: Buffer): void => {
          output += String(chunk);
          const match = /(http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(output);
          if (match !== null) resolve(match[1]!);
        };
        child.stdout.on('data', read);
        child.stderr.on('data', read);
        child.on('exit', (code) => reject(new Error(`\`${command}\` exited ${code}:\n${output}`)));
      });
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'docs-commands', version: '1.0.0' } },
        }),
      });
      expect(response.status).toBe(200);
    } finally {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      process.kill(-child.pid!, 'SIGTERM');
      await exited;
    }
  }

  const runnable = shell.filter((block) => block.notRun === undefined);

  test('has blocks to run', () => {
    expect(runnable.length).toBeGreaterThanOrEqual(3);
  });

  // In page order, each block after the ones before it, with the page's files written as the reader reaches them.
  test.each(runnable.map((block) => [block.line, block] as const))('the block at line %i', async (_line, block) => {
    for (const file of files.filter((f) => f.line < block.line)) {
      mkdirSync(dirname(join(cwd, file.path)), { recursive: true });
      writeFileSync(join(cwd, file.path), `${file.code}\n`);
    }
    for (const line of block.code.split('\n')) if (line.trim() !== '' && !line.trim().startsWith('#')) await runLine(line);
  });
});
