// `gbatch resolve <id> --abandon [--not-billed]`: the row's state, its history and the decision read and
// written under one write lock, so what the operator decided on is what is changed.
import { planAbandon, type AbandonPlan } from '../core/abandon.js';
import type { Change, JournalStore } from '../journal/index.js';
import { busyAsUsage } from './guarded-apply.js';
import { UsageError } from '../job/options.js';
import { COMMAND_LINE, type Operator } from '../core/operator.js';

export async function abandonItem(
  journal: JournalStore,
  id: string,
  notBilled: boolean,
  journalArg: string,
  operator: Operator = COMMAND_LINE,
): Promise<string> {
  const plan = await journal
    .decideAndApply<AbandonPlan>(async (reader) => {
      const item = await reader.get(id);
      if (!item) return { changes: [], result: { kind: 'refused', why: `${journal.location}: no item '${id}'` } };
      const abandonedWhileUncertain = item.state === 'failed' && (await reader.abandonedWhileUncertain([id])).has(id);
      const decided = planAbandon(
        { id, state: item.state, reservedUsd: item.reservedUsd, abandonedWhileUncertain },
        notBilled,
        journalArg,
      );
      if (decided.kind !== 'change') return { changes: [], result: decided };
      const change: Change = {
        id,
        event: decided.event,
        expect: item.state,
        patch: { ...(decided.reservedUsd === 0 ? { reservedUsd: 0 } : {}), lastError: decided.error },
        detail: { ...operator, ...(notBilled ? { notBilled: true } : {}) },
      };
      return { changes: [change], result: decided };
    })
    .catch((err: unknown) => {
      throw busyAsUsage(journal, err);
    });
  if (plan.kind === 'refused') throw new UsageError(plan.why);
  return plan.said;
}
