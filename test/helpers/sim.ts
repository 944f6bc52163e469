// A simulator per test, closed when the test ends, and what the tests read from its ledger.
import { onTestFinished } from 'vitest';
import {
  startSimulator,
  type Ledger,
  type Simulator,
  type SimulatorOptions,
  type TaskRecord,
} from '../../src/sim/index.js';

export const KEY = 'sk-e2e-key-7f3a';

/** A simulator with one account (KEY, 100 USD) and 0.3 s video tasks; the caller closes it. */
export function launchSim(options: SimulatorOptions = {}): Promise<Simulator> {
  return startSimulator({ accounts: [{ key: KEY, balanceUsd: 100 }], taskSeconds: 0.3, seed: 11, ...options });
}

/** As launchSim, closed when the current test ends. */
export async function startSim(options: SimulatorOptions = {}): Promise<Simulator> {
  const sim = await launchSim(options);
  onTestFinished(() => sim.close());
  return sim;
}

/** Requests that carry work to the gateway (submissions and chat calls), optionally of one account. */
export function posts(ledger: Ledger, account?: string): number {
  return ledger.requests.filter((r) => r.method === 'POST' && (account === undefined || r.account === account)).length;
}

/** Prompts the gateway accepted more than once. */
export function duplicates(ledger: Ledger): Record<string, number> {
  return Object.fromEntries(Object.entries(ledger.submissionsByPrompt()).filter(([, n]) => n > 1));
}

/** Tasks the gateway holds for one prompt. */
export function tasksFor(ledger: Ledger, prompt: string): TaskRecord[] {
  return ledger.tasks.filter((t) => t.prompt === prompt);
}

/** USD per chat/responses call, as charged. */
export function chatCharges(ledger: Ledger, account = 'acct-1'): number[] {
  return ledger.charges.filter((c) => c.kind === 'chat' && c.account === account).map((c) => c.usd);
}
