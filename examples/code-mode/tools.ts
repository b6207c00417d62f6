// The example's tools. Local: the customers and the outbox. On the billing MCP server
// (billing-server.ts): the invoices. No JSON Schema is written by hand: `anytool build`
// reads the parameter and return types, so the code API knows what each tool returns.
import { tool } from '@anytool/core';
import { CUSTOMERS, INVOICES, type Customer, type Invoice } from './data.js';

/** What the outbox holds after a run: one line an email. */
export const outbox: string[] = [];

/**
 * Lists the customers, optionally of one region.
 * @param region Only customers of this region.
 */
export const listCustomers = tool(
  function list_customers(region?: 'EU' | 'US' | 'APAC'): { customers: Customer[] } {
    return { customers: CUSTOMERS.filter((c) => region === undefined || c.region === region) };
  },
  { annotations: { readOnly: true } },
);

/**
 * Sends an email.
 * @param to The address.
 * @param subject The subject line.
 * @param body The text.
 */
export const sendEmail = tool(function send_email(to: string, subject: string, body: string): { queued: string } {
  outbox.push(`${to}: ${subject} (${body.length} characters)`);
  return { queued: `msg-${outbox.length}` };
});

/**
 * Lists invoices, by status and customer.
 * @param status Only invoices of this status.
 * @param customerId Only this customer's invoices.
 */
export const listInvoices = tool(
  function list_invoices(status?: 'paid' | 'unpaid', customerId?: string): { invoices: Invoice[] } {
    return { invoices: INVOICES.filter((i) => (status === undefined || i.status === status) && (customerId === undefined || i.customerId === customerId)) };
  },
  { annotations: { readOnly: true } },
);
