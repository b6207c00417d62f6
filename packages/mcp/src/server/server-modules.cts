// CommonJS in both builds, for a `require` that resolves next to this file: `createMcpServer` is synchronous, and
// loads the server's modules (and with them @modelcontextprotocol/server) the first time it runs. In the ES module
// build, `require` of an ES module (Node 20.19+, 22.12+) shares the module cache of `import()`: a server loaded
// either way is the same modules, and the same SDK classes.

/** The module of `createMcpServer` (./tool-server.js), loaded synchronously. */
export function requireToolServer(): unknown {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use, not at import
  return require('./tool-server.js');
}
