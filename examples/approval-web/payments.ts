// The tools: a balance to read, and a payment that needs a person's approval.
// Payments are lines appended to a ledger file, so a test (or you) can count
// how many times a payment really ran.
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { tool, type ExecutionContext } from '@anytool/core';

/** What the account holds before any payment. */
export const OPENING_BALANCE_EUR = 1000;

/** One line of the ledger: a payment that ran. */
export interface LedgerEntry {
  paymentId: string;
  to: string;
  amountEur: number;
  memo: string;
  /** The model's tool call id: which call of which run made the payment. */
  callId: string | undefined;
  at: string;
}

export function readLedger(path: string): LedgerEntry[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as LedgerEntry);
}

function balance(path: string): number {
  return readLedger(path).reduce((left, entry) => left - entry.amountEur, OPENING_BALANCE_EUR);
}

export function paymentTools(ledgerPath: string) {
  const getBalance = tool(() => ({ balanceEur: balance(ledgerPath) }), {
    name: 'get_balance',
    description: 'The balance of the account, in EUR.',
    parameters: { type: 'object', properties: {}, additionalProperties: false },
    annotations: { readOnly: true },
  });

  const sendPayment = tool(
    ({ to, amountEur, memo }: { to: string; amountEur: number; memo: string }, context: ExecutionContext) => {
      const left = balance(ledgerPath);
      if (amountEur > left) throw new Error(`the balance is ${left} EUR, less than the ${amountEur} EUR to send`);
      const entry: LedgerEntry = { paymentId: `P-${randomUUID().slice(0, 8)}`, to, amountEur, memo, callId: context.callId, at: new Date().toISOString() };
      // One write of one line in append mode: a line is never torn or interleaved with another process's.
      appendFileSync(ledgerPath, `${JSON.stringify(entry)}\n`);
      return { paymentId: entry.paymentId, to, amountEur, balanceEur: left - amountEur };
    },
    {
      name: 'send_payment',
      description: 'Sends money from the account. A person approves each payment before it is sent.',
      parameters: {
        type: 'object',
        properties: {
          to: { type: 'string', minLength: 1, maxLength: 80, description: 'Who is paid' },
          amountEur: { type: 'number', exclusiveMinimum: 0, maximum: 10000, description: 'How much, in EUR' },
          memo: { type: 'string', maxLength: 200, description: 'What the payment is for (may be empty)' },
        },
        required: ['to', 'amountEur', 'memo'],
        additionalProperties: false,
      },
      requiresApproval: true,
      annotations: { destructive: true, idempotent: false },
      context: true,
    },
  );

  return [getBalance, sendPayment];
}
