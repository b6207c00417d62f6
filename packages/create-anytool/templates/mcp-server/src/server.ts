// The MCP server: over stdio by default (what a desktop client or IDE starts), over streamable HTTP with --http
// (`npm start`: http://127.0.0.1:3000/mcp, PORT to change the port).
import { serveMcp } from '@anytool/mcp';
import { notebookTools } from './tools.js';

if (process.argv.includes('--http')) {
  const server = await serveMcp(notebookTools(), { transport: 'http', port: Number(process.env['PORT'] ?? 3000), handleSignals: true });
  console.log(`MCP server at ${server.url} (Ctrl-C to stop)`);
} else {
  await serveMcp(notebookTools(), { transport: 'stdio', handleSignals: true });
}
