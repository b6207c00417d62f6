// The billing service: its invoices as an MCP server over stdio, for the example and the
// code-mode benchmark: `node examples/dist/code-mode/billing-server.js`.
import { Toolset } from '@anytool/core';
import { serveMcp } from '@anytool/mcp';
import { listInvoices } from './tools.js';

const server = await serveMcp(new Toolset(listInvoices), { transport: 'stdio', name: 'billing', handleSignals: true });
await server.closed;
