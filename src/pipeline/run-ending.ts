// Pure: what the journal's `runs` table keeps about how a run ended (status shows it to the operator).
import { journalOutageLine } from '../journal/outage.js';
import type { RunEnd } from '../journal/index.js';
import type { RunResult } from './runner.js';

/** Stop reasons an operator should hear about: the run ended with work left for a reason to look at. */
export const ATTENTION_STOPS: ReadonlySet<string> = new Set(['unreachable', 'deadline', 'interrupted', 'budget', 'balance', 'auth', 'internal-error', 'journal']);

export function runEndOf(result: RunResult): RunEnd {
  const { counts } = result;
  const message = result.stopMessage ?? (() => {
    switch (result.stopReason) {
      case 'budget': return `stopped by --budget: ${counts.deferred} item(s) deferred`;
      case 'balance': return `the gateway's balance ran out (402): ${counts.deferred} item(s) deferred`;
      case 'auth': return 'the gateway refused the API key (401): rows stay pending; fix GATEWAY_API_KEY';
      default: return null;
    }
  })();
  return { exitCode: result.exitCode, stopReason: result.stopReason ?? null, message };
}

/** A run that ended in an exception records it too: a journal out of reach (75), else a bug (70). */
export function crashEndOf(err: unknown, redact: (text: string) => string): RunEnd {
  const outage = journalOutageLine(err);
  if (outage) return { exitCode: 75, stopReason: 'journal', message: redact(outage) };
  const text = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  return { exitCode: 70, stopReason: 'internal-error', message: redact(text.replace(/\s+/g, ' ').trim()) };
}
