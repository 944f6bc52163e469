// `gbatch resolve <id> --recorded-answer`: settling an uncertain chat/responses row from the answer a runner
// received (and the gateway billed) after it lost its lease, as that runner noted it in the journal's event
// log. Nothing is sent: the row becomes `succeeded` with that answer and its cost, and the next run writes it
// to results.jsonl. Only the answer to the row's current attempt settles it: a row sent again since has
// another request whose outcome this answer does not tell.
import type { Item, JournalOperator, JournalRun } from '../journal/index.js';
import { ANSWER_UNRECORDED, answerNote, type AnswerNote } from '../pipeline/terms.js';
import { applyDecision } from './guarded-apply.js';
import { UsageError } from '../job/options.js';

export async function settleFromRecordedAnswer(journal: JournalRun & JournalOperator, item: Item): Promise<string> {
  const id = item.id;
  if (item.kind === 'video') throw new UsageError(`item '${id}' is a video row: its outcome is a task; use --task-id`);
  if (item.state !== 'uncertain')
    throw new UsageError(
      `item '${id}' is ${item.state}, not uncertain: --recorded-answer settles uncertain items only`,
    );
  const note = await recordedAnswer(journal, id);
  if (!note)
    throw new UsageError(
      `item '${id}': the journal's event log holds no answer recorded for it; use --resubmit or --abandon`,
    );
  if (note.attempt !== item.attempts) {
    throw new UsageError(
      `item '${id}': the recorded answer is attempt ${note.attempt}'s, the row is at attempt ${item.attempts}; it does not settle this attempt; nothing changed`,
    );
  }
  const { answer } = note;
  await applyDecision(journal, item, {
    event: 'adopt',
    patch: { ...answer, reservedUsd: 0 },
    detail: {
      by: 'operator',
      attempt: note.attempt,
      runner: note.runner,
      actualUsd: answer.actualUsd ?? null,
      ...(answer.unmetered ? { unmetered: true } : {}),
    },
  });
  const cost = typeof answer.actualUsd === 'number' ? ` ($${answer.actualUsd})` : '';
  return `item '${id}': settled from the answer received for attempt ${note.attempt}${cost}; nothing is sent again; the next \`gbatch run\` writes it to results.jsonl`;
}

/**
 * The answer a fenced runner recorded for the row's current attempt: sending that attempt again would bill it twice.
 */
export async function answerToCurrentAttempt(
  journal: JournalRun & JournalOperator,
  item: Item,
): Promise<AnswerNote | undefined> {
  const note = item.kind === 'video' ? undefined : await recordedAnswer(journal, item.id);
  return note?.attempt === item.attempts ? note : undefined;
}

async function recordedAnswer(journal: JournalRun & JournalOperator, id: string): Promise<AnswerNote | undefined> {
  return lastRecordedAnswer(await journal.events(id));
}

function lastRecordedAnswer(events: ReadonlyArray<{ event: string; detail: unknown }>): AnswerNote | undefined {
  for (let i = events.length - 1; i >= 0; i--) {
    if (events[i]!.event !== ANSWER_UNRECORDED) continue;
    const note = answerNote(events[i]!.detail);
    if (note) return note;
  }
  return undefined;
}
