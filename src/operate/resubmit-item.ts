// `gbatch resolve <id> --resubmit`: an uncertain row sent again on purpose, never one whose answer the
// journal already holds (sending it again would bill it twice).
import { commandNaming } from '../core/job-address.js';
import { COMMAND_LINE, type Operator } from '../core/operator.js';
import type { Item, JournalOperator, JournalRun } from '../journal/index.js';
import { UsageError } from '../job/options.js';
import { applyDecision } from './guarded-apply.js';
import { answerToCurrentAttempt } from './recorded-answer.js';

export async function resubmitItem(
  journal: JournalRun & JournalOperator,
  item: Item,
  journalArg: string,
  operator: Operator = COMMAND_LINE,
  notBilled = false,
): Promise<string> {
  const id = item.id;
  if (item.state !== 'uncertain')
    throw new UsageError(`item '${id}' is ${item.state}, not uncertain: only uncertain items are resubmitted`);
  if (await answerToCurrentAttempt(journal, item)) {
    throw new UsageError(
      `item '${id}': the journal holds the answer the gateway gave (and billed) for its request; settle it with \`${commandNaming(journalArg, 'resolve', { id }, '--recorded-answer')}\` instead; nothing changed`,
    );
  }
  await applyDecision(journal, item, {
    event: 'resubmit',
    patch: { reservedUsd: 0, lastError: null },
    ...(notBilled ? { notBilled: true } : {}),
    detail: { ...operator, ...(notBilled ? { notBilled: true } : {}) },
  });
  return notBilled
    ? `item '${id}': will be sent again by the next \`gbatch run\`; its first request was not billed (the operator checked): its bound is released`
    : `item '${id}': will be sent again by the next \`gbatch run\` (if the first request reached the gateway, both may be billed: its bound stays booked against the budget)`;
}
