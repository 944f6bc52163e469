// Pure: what the journal's `runs` table keeps about how a run ended (status shows it to the operator).
import { EXIT_CODE } from './exit-codes.js';

/** How a run ended, as the journal's `runs` table keeps it. */
export interface RunEnding {
  exitCode: number;
  stopReason: string | null;
  message: string | null;
}

/** What a run's ending is read from: the run's result. */
export interface EndedRun {
  exitCode: number;
  stopReason?: string | undefined;
  stopMessage?: string | undefined;
  counts: { deferred: number };
}

/** Stop reasons an operator should hear about: the run ended with work left for a reason to look at. */
export const ATTENTION_STOPS: ReadonlySet<string> = new Set([
  'unreachable',
  'deadline',
  'interrupted',
  'budget',
  'balance',
  'auth',
  'internal-error',
  'journal',
]);

export function runEndOf(result: EndedRun): RunEnding {
  const { counts } = result;
  const message =
    result.stopMessage ??
    (() => {
      switch (result.stopReason) {
        case 'budget':
          return `stopped by --budget: ${counts.deferred} item(s) deferred`;
        case 'balance':
          return `the gateway's balance ran out (402): ${counts.deferred} item(s) deferred`;
        case 'auth':
          return 'the gateway refused the API key (401): rows stay pending; fix GATEWAY_API_KEY';
        default:
          return null;
      }
    })();
  return { exitCode: result.exitCode, stopReason: result.stopReason ?? null, message };
}

/**
 * A run that ended in an exception records it too: a journal out of reach (75; `outage` is the journal's
 * line for it), else a bug (70).
 */
export function crashEndOf(err: unknown, outage: string | undefined, redact: (text: string) => string): RunEnding {
  if (outage) return { exitCode: EXIT_CODE.inFlight, stopReason: 'journal', message: redact(outage) };
  const text = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  return {
    exitCode: EXIT_CODE.internal,
    stopReason: 'internal-error',
    message: redact(text.replace(/\s+/g, ' ').trim()),
  };
}
