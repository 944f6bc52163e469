// `gbatch resolve <id> --abandon [--not-billed]`: the row's state, its history and the decision read and
// written under one write lock, so what the operator decided on is what is changed.
import { commandNaming } from '../core/job-address.js';
import { planAbandon, type AbandonPlan } from '../core/abandon.js';
import type { Change, JournalOperator, JournalRun } from '../journal/index.js';
import { busyAsUsage } from './guarded-apply.js';
import { UsageError } from '../job/options.js';
import { COMMAND_LINE, type Operator } from '../core/operator.js';
import { answerToCurrentAttempt } from './recorded-answer.js';

export async function abandonItem(
  journal: JournalRun & JournalOperator,
  id: string,
  notBilled: boolean,
  journalArg: string,
  operator: Operator = COMMAND_LINE,
): Promise<string> {
  await refuseNotBilledWhenAnswered(journal, id, notBilled, journalArg);
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

/**
 * `--not-billed` on a row whose billed answer the journal itself holds (a runner received it after losing its
 * lease) would release a charge the gateway made: refused as `--resubmit` is, naming the command that settles it.
 */
async function refuseNotBilledWhenAnswered(
  journal: JournalRun & JournalOperator,
  id: string,
  notBilled: boolean,
  journalArg: string,
): Promise<void> {
  if (!notBilled) return;
  const item = await journal.get(id);
  if (!item || (item.state !== 'uncertain' && item.state !== 'failed')) return;
  if (!(await answerToCurrentAttempt(journal, item))) return;
  const settle =
    item.state === 'uncertain'
      ? `settle it with \`${commandNaming(journalArg, 'resolve', { id }, '--recorded-answer')}\``
      : 'its bound stays booked';
  throw new UsageError(
    `item '${id}': the journal holds the answer the gateway gave (and billed) for its request, so it was billed; ${settle} instead; nothing changed`,
  );
}
