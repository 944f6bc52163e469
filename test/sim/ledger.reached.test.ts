// Ledger.reached: what a test awaits instead of polling the ledger. It resolves at the first record after
// which its condition holds, and not before.

import { expect, test } from 'vitest';
import { Ledger } from '../../src/sim/ledger.js';

const request = (method: string) => ({
  at: 0,
  account: 'acct-1',
  method,
  path: '/v1/chat/completions',
  status: 200,
  outcome: 'answered' as const,
});
const posts = (ledger: Ledger) => ledger.requests.filter((r) => r.method === 'POST').length;
const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

test('resolves once the condition holds after a record, not before', async () => {
  const ledger = new Ledger();
  let done = false;
  void ledger
    .reached((l) => posts(l) >= 2)
    .then(() => {
      done = true;
    });
  ledger.recordRequest(request('POST'));
  ledger.recordRequest(request('GET'));
  await flush();
  expect(done).toBe(false);
  ledger.recordRequest(request('POST'));
  await flush();
  expect(done).toBe(true);
});

test('resolves at once when the condition already holds; a charge is a change too', async () => {
  const ledger = new Ledger();
  ledger.recordRequest(request('POST'));
  await ledger.reached((l) => posts(l) === 1);
  let charged = false;
  void ledger
    .reached((l) => l.chargesTotal('acct-1') > 0)
    .then(() => {
      charged = true;
    });
  await flush();
  expect(charged).toBe(false);
  ledger.recordCharge({ at: 0, account: 'acct-1', kind: 'chat', usd: 0.01 });
  await flush();
  expect(charged).toBe(true);
});
