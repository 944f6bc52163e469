// An operator's decision on a row, written compare-and-set on the state the operator's command saw:
// if a live run (or another operator) moved the row meanwhile, the decision is refused in one line.
import {
  JournalWriteBusyError,
  StaleTransitionError,
  type Change,
  type Item,
  type JournalRun,
} from '../journal/index.js';
import { UsageError } from '../job/options.js';

export async function applyDecision(
  journal: JournalRun,
  seen: Item,
  change: Omit<Change, 'id' | 'expect'>,
): Promise<void> {
  try {
    await journal.apply([{ ...change, id: seen.id, expect: seen.state }]);
  } catch (err) {
    if (err instanceof StaleTransitionError) {
      throw new UsageError(
        `item '${seen.id}' changed state (now ${err.actual ?? 'another state'}) while resolving; look again`,
      );
    }
    throw busyAsUsage(journal, err);
  }
}

/** A journal held busy past its timeout is the operator's to retry, said in one line; anything else is as thrown. */
export function busyAsUsage(journal: JournalRun, err: unknown): unknown {
  if (err instanceof JournalWriteBusyError) return new UsageError(err.message);
  return err;
}
