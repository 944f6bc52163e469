// How a run ends when its journal stopped being its own: lost under it (the saved copy and the task ids the
// operator needs), or its lock or lease taken by another runner.
import type { JournalFileLoss, JournalRun } from '../../journal/index.js';
import { printable } from '../../core/printable.js';
import { EXIT } from '../exit-code.js';
import { isUnrecordedTask, type UnrecordedAnswer, type UnrecordedOutcome } from './unrecorded.js';
import { journalLossReport } from './journal-rescue.js';
import type { RunResult } from '../run-result.js';
import type { RunVoice } from '../voice/run-voice.js';

/** Task ids named in the loss's summary line; the commands after it name every one. */
const LISTED = 20;

/**
 * The end of a run whose journal was lost under it: the journal saved where it can be, the truth for the operator, and
 * the exit code.
 */
export async function endLost(store: JournalRun, kind: JournalFileLoss, base: RunResult): Promise<RunResult> {
  const rescue = await store.rescue();
  return {
    ...base,
    exitCode: EXIT.usage,
    stopReason: 'journal-lost',
    counts: await store.counts(),
    journalLost: {
      lines: journalLossReport(store.location, kind, rescue),
      ...(rescue && 'path' in rescue.copy ? { savedCopy: rescue.copy.path } : {}),
    },
  };
}

/**
 * The end of a run that lost its standing as the journal's runner (its lock, or on a server its lease).
 * Tasks the gateway accepted after that are named with their ids: the journal took none of them as its
 * rows' own (another runner holds those rows now, uncertain), and only these lines, and the journal's
 * event log where it could take a note, still know them. Answers received (and billed) after that are in
 * that log whole, for `gbatch resolve --recorded-answer` to settle their rows from.
 */
export function endLeaseLost(
  location: string,
  base: RunResult,
  voice: RunVoice,
  outcomes: readonly UnrecordedOutcome[] = [],
): RunResult {
  const unrecorded = outcomes.filter(isUnrecordedTask);
  const answers = outcomes.filter((o): o is UnrecordedAnswer => !isUnrecordedTask(o));
  const lines = [voice.lockLost(location)];
  if (unrecorded.length > 0) {
    lines.push(
      `${unrecorded.length} task(s) were accepted by the gateway (and may be billed) after that; ${voice.journal} did not take their ids ` +
        `as the rows' own (item -> task): ${unrecorded
          .slice(0, LISTED)
          .map((t) => `${printable(t.id)} -> ${printable(t.taskId)}`)
          .join(', ')}` +
        `${unrecorded.length > LISTED ? `, ... and ${unrecorded.length - LISTED} more (every one below)` : ''}`,
    );
  }
  if (answers.length > 0) {
    lines.push(
      `${answers.length} answer(s) were received from the gateway (and billed) after that; ${voice.journal} did not take them as the rows' own: ` +
        `${answers
          .slice(0, LISTED)
          .map((a) => printable(a.id))
          .join(', ')}${answers.length > LISTED ? `, ... and ${answers.length - LISTED} more (every one below)` : ''}`,
    );
  }
  return {
    ...base,
    exitCode: EXIT.inFlight,
    stopReason: 'lock-lost',
    journalLost: {
      lines,
      ...(unrecorded.length > 0 ? { unrecordedTasks: [...unrecorded] } : {}),
      ...(answers.length > 0 ? { unrecordedAnswers: answers.map((a) => ({ id: a.id, attempt: a.attempt })) } : {}),
    },
  };
}

/**
 * The task ids and answers the journal refused, noted in its event log where it still takes a note from a
 * runner that lost its standing (a database: a note moves no row), for the operator and the rows' next owner.
 */
export async function noteUnrecorded(
  journal: JournalRun,
  outcomes: readonly UnrecordedOutcome[],
  say: (line: string) => void,
  voice: RunVoice,
): Promise<void> {
  const tasks = outcomes.filter(isUnrecordedTask);
  const answers = outcomes.filter((o): o is UnrecordedAnswer => !isUnrecordedTask(o));
  if (!journal.capabilities.notesAfterLoss) return;
  try {
    if (tasks.length > 0) await journal.noteUnrecordedTasks(tasks);
    if (answers.length > 0) await journal.noteUnrecordedAnswers(answers);
  } catch (err) {
    say(
      `could not note the unrecorded task ids and answers in ${voice.journal}'s event log: ${(err as Error).message}`,
    );
  }
}
