import { describe, expect, it } from 'vitest';
import { answerNote, isUnrecordedTask, unrecordedOutcome } from '../../../src/pipeline/ending/unrecorded.js';

describe('unrecordedOutcome: what a fenced runner must not drop', () => {
  it('keeps a video task id', () => {
    const kept = unrecordedOutcome({ id: 'v-1', event: 'accept', patch: { taskId: 'task_1', lastError: null } }, 1);
    expect(kept).toEqual({ id: 'v-1', taskId: 'task_1' });
    expect(isUnrecordedTask(kept!)).toBe(true);
  });

  it('keeps a chat answer whole with its cost and attempt', () => {
    const response = { choices: [{ message: { content: 'hi' } }], usage: { total_tokens: 3 } };
    const kept = unrecordedOutcome(
      {
        id: 'c-1',
        event: 'complete',
        patch: {
          response,
          responseStatus: 200,
          requestId: 'req_1',
          actualUsd: 0.002,
          reservedUsd: 0,
          totalTokens: 3,
          lastError: null,
        },
      },
      2,
    );
    expect(kept).toEqual({
      id: 'c-1',
      attempt: 2,
      answer: { response, responseStatus: 200, requestId: 'req_1', actualUsd: 0.002, totalTokens: 3, lastError: null },
    });
    expect(isUnrecordedTask(kept!)).toBe(false);
  });

  it('keeps nothing for an outcome that carries no answer', () => {
    expect(
      unrecordedOutcome({ id: 'c-1', event: 'lose', patch: { lastError: { message: 'timeout' } } }, 1),
    ).toBeUndefined();
    expect(unrecordedOutcome({ id: 'c-1', event: 'retry', patch: { reservedUsd: 0 } }, 1)).toBeUndefined();
  });
});

describe('answerNote: the recorded answer in an event detail', () => {
  it('reads what noteUnrecordedAnswers writes', () => {
    const detail = { attempt: 1, runner: 'r-1', answer: { response: { choices: [] }, actualUsd: 0.01 }, note: 'n' };
    expect(answerNote(detail)).toEqual(detail);
  });

  it('refuses a detail that holds no answer', () => {
    expect(answerNote(null)).toBeUndefined();
    expect(answerNote({ attempt: 1 })).toBeUndefined();
    expect(answerNote({ attempt: '1', answer: { response: {} } })).toBeUndefined();
    expect(answerNote({ attempt: 1, answer: { actualUsd: 1 } })).toBeUndefined();
  });
});
