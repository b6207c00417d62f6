// The example's data: 150 customers and their invoices, made the same on every run.

export interface Customer {
  id: string;
  name: string;
  email: string;
  region: 'EU' | 'US' | 'APAC';
}

export interface Invoice {
  id: string;
  customerId: string;
  /** In euros. */
  amount: number;
  status: 'paid' | 'unpaid';
  /** ISO date. */
  due: string;
}

const REGIONS: Customer['region'][] = ['EU', 'US', 'APAC'];
const NAMES = ['Aalto', 'Berg', 'Costa', 'Dahl', 'Eklund', 'Fischer', 'Garcia', 'Haas', 'Ito', 'Jensen', 'Kowalski', 'Lund', 'Moreau', 'Nilsen', 'Ortiz'];

/** A small deterministic generator (LCG): the same numbers on every run. */
function numbers(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state / 2_147_483_648;
  };
}

export const CUSTOMERS: Customer[] = Array.from({ length: 150 }, (_, i) => {
  const id = `c${String(i + 1).padStart(3, '0')}`;
  const name = `${NAMES[i % NAMES.length]} ${['Ltd', 'AS', 'GmbH', 'Inc', 'SA'][i % 5]} ${Math.floor(i / NAMES.length) + 1}`;
  return { id, name, email: `billing@${id}.example.com`, region: REGIONS[i % 3]! };
});

export const INVOICES: Invoice[] = (() => {
  const next = numbers(44);
  const out: Invoice[] = [];
  for (const customer of CUSTOMERS) {
    const count = 1 + Math.floor(next() * 6);
    for (let k = 0; k < count; k++) {
      out.push({
        id: `inv-${out.length + 1}`,
        customerId: customer.id,
        amount: Math.round(next() * 500_000) / 100,
        status: next() < 0.55 ? 'paid' : 'unpaid',
        due: `2026-${String(1 + Math.floor(next() * 12)).padStart(2, '0')}-${String(1 + Math.floor(next() * 28)).padStart(2, '0')}`,
      });
    }
  }
  return out;
})();
