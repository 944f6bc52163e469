// `resolve --all-uncertain`: the operator's one decision for every uncertain row. A row whose answer the
// journal already holds (a runner received it after losing its lease) is never resent in bulk: sending
// it again would bill it twice, so the whole decision is refused until it is settled.
import { commandNaming } from '../core/job-address.js';
import { COMMAND_LINE, type Operator } from '../core/operator.js';
import { quoteArg } from '../core/shell-text.js';
import type { JournalOperator, JournalRun } from '../journal/index.js';
import { resolveAllUncertain, type BulkDecision } from '../journal/resolve-all.js';
import { UsageError } from '../job/options.js';
import { answerToCurrentAttempt } from './recorded-answer.js';

const SHOWN_IDS = 20;

/** Returns the ids resolved, in manifest order; throws UsageError (nothing changed) when refused. */
export async function resolveEveryUncertain(
  journal: JournalRun & JournalOperator,
  decision: BulkDecision,
  notBilled: boolean,
  journalArg: string,
  operator: Operator = COMMAND_LINE,
): Promise<string[]> {
  if (decision === 'resubmit') await refuseRecordedAnswers(journal, journalArg);
  return resolveAllUncertain(journal, decision, notBilled, operator);
}

async function refuseRecordedAnswers(journal: JournalRun & JournalOperator, journalArg: string): Promise<void> {
  const answered: string[] = [];
  for await (const item of journal.iterate({ states: ['uncertain'] })) {
    if (await answerToCurrentAttempt(journal, item)) answered.push(item.id);
  }
  if (answered.length === 0) return;
  throw new UsageError(
    `${answered.length} uncertain item(s) have the gateway's answer in the journal (received after a runner lost its lease): ` +
      `${answered.slice(0, SHOWN_IDS).map(quoteArg).join(', ')}${answered.length > SHOWN_IDS ? ' ...' : ''}; settle each with ` +
      `\`${commandNaming(journalArg, 'resolve', '<item-id>', '--recorded-answer')}\` first; nothing changed`,
  );
}
