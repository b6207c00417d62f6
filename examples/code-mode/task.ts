// The task of the example and of the benchmark, and the program a model writes for it in code mode.

export const QUESTION = 'Find the five customers with the largest unpaid totals and email each a reminder of what they owe.';

/** What a model writes against the typed API (`toolset.codeApi()`): one program, one tool call. */
export const PROGRAM = `const { customers } = await tools.list_customers();
const { invoices } = await billing.list_invoices({ status: 'unpaid' });
const owed = new Map<string, number>();
for (const invoice of invoices) owed.set(invoice.customerId, (owed.get(invoice.customerId) ?? 0) + invoice.amount);
const top = customers
  .map((c) => ({ ...c, owed: Math.round((owed.get(c.id) ?? 0) * 100) / 100 }))
  .sort((a, b) => b.owed - a.owed)
  .slice(0, 5);
for (const c of top) {
  await tools.send_email({ to: c.email, subject: 'Payment reminder', body: \`You owe EUR \${c.owed.toFixed(2)}.\` });
}
return top.map((c) => \`\${c.name} (\${c.id}): EUR \${c.owed.toFixed(2)}\`);`;

/** The answer a model gives once it knows the five: the same words in code mode and with direct calls. */
export function answer(lines: readonly string[]): string {
  return `Emailed a payment reminder to the five customers who owe the most:\n${lines.map((line) => `- ${line}`).join('\n')}`;
}
