// What the gateway gave a runner after it lost its standing (its lease, on a database): the journal refuses
// the outcome as the row's own (another runner holds the row, uncertain), yet it was billed. A task id, or a
// chat/responses answer with its cost, is kept for the run's last lines and noted in the journal's event log,
// where `gbatch resolve` settles the row from it without sending anything again.
import type { Change } from '../../journal/index.js';
import type { ItemPatch } from '../../journal/item.js';

/** A task the gateway accepted whose id reached this run after the journal stopped taking its writes. */
export interface UnrecordedTask {
  id: string;
  taskId: string;
}

/** The fields of an answered text row, as the run would have written them. */
export type RecordedAnswer = Pick<
  ItemPatch,
  'response' | 'responseStatus' | 'requestId' | 'actualUsd' | 'totalTokens' | 'lastError' | 'unmetered'
>;

/** A chat/responses answer that reached this run after the journal stopped taking its writes. */
export interface UnrecordedAnswer {
  id: string;
  attempt: number;
  answer: RecordedAnswer;
}

export type UnrecordedOutcome = UnrecordedTask | UnrecordedAnswer;

export function isUnrecordedTask(outcome: UnrecordedOutcome): outcome is UnrecordedTask {
  return 'taskId' in outcome;
}

/** The event that notes an answer in the journal's log (no row moves). */
export const ANSWER_UNRECORDED = 'answer-unrecorded';

/**
 * What must not be lost if the journal refuses `change`: a task id or a received answer; undefined for anything else.
 */
export function unrecordedOutcome(change: Change, attempt: number): UnrecordedOutcome | undefined {
  const patch = change.patch ?? {};
  if (change.event === 'accept' && typeof patch.taskId === 'string') return { id: change.id, taskId: patch.taskId };
  if (change.event !== 'complete') return undefined;
  const answer: RecordedAnswer = {
    response: patch.response,
    responseStatus: patch.responseStatus ?? null,
    requestId: patch.requestId ?? null,
    actualUsd: patch.actualUsd ?? null,
    totalTokens: patch.totalTokens ?? null,
    lastError: patch.lastError ?? null,
    ...(patch.unmetered ? { unmetered: true } : {}),
  };
  return { id: change.id, attempt, answer };
}

/** The detail of an `answer-unrecorded` event. */
export interface AnswerNote {
  attempt: number;
  runner: string | null;
  answer: RecordedAnswer;
  note: string;
}

/** The recorded answer in an event's detail, if it is one this version can settle a row from. */
export function answerNote(detail: unknown): AnswerNote | undefined {
  const d = detail as Partial<AnswerNote> | null | undefined;
  if (!d || typeof d !== 'object' || typeof d.attempt !== 'number' || !d.answer || typeof d.answer !== 'object')
    return undefined;
  if (!('response' in d.answer)) return undefined;
  return {
    attempt: d.attempt,
    runner: typeof d.runner === 'string' ? d.runner : null,
    answer: d.answer,
    note: typeof d.note === 'string' ? d.note : '',
  };
}
