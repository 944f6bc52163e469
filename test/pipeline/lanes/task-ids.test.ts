import { describe, expect, it } from 'vitest';
import { submittedTaskIds } from '../../../src/core/retry.js';
import { answeredTaskIds, taskIdsOf } from '../../../src/pipeline/lanes/task-ids.js';

describe('submittedTaskIds', () => {
  it.each<[string, unknown, string[]]>([
    ['one id', { id: 'task_1' }, ['task_1']],
    ['id and task_id alike', { id: 'task_1', task_id: 'task_1' }, ['task_1']],
    ['id and task_id that differ', { id: 'gw_1', task_id: 'task_1' }, ['gw_1', 'task_1']],
    ['only task_id', { task_id: 'task_1' }, ['task_1']],
    ['wrapped as a task status', { code: 'success', data: { task_id: 'task_1', id: 'gw_1' } }, ['task_1', 'gw_1']],
    ['blank and non-text ids left out', { id: ' ', task_id: 42 }, []],
    ['not an object', 'task_1', []],
  ])('%s', (_name, body, expected) => {
    expect(submittedTaskIds(body)).toEqual(expected);
  });
});

describe('answeredTaskIds / taskIdsOf', () => {
  it('keeps the ids only when there is more than one, and never an overlong text', () => {
    expect(answeredTaskIds({ id: 'task_1' })).toBeUndefined();
    expect(answeredTaskIds({ id: 'gw_1', task_id: 'task_1' })).toEqual({ task_ids: ['gw_1', 'task_1'] });
    expect(answeredTaskIds({ id: 'gw_1', task_id: 'x'.repeat(201) })).toBeUndefined();
  });

  it('polls by the row task id first, then the others its answer named', () => {
    expect(taskIdsOf({ taskId: 'task_1', response: null })).toEqual(['task_1']);
    expect(taskIdsOf({ taskId: 'gw_1', response: { task_ids: ['gw_1', 'task_1'] } })).toEqual(['gw_1', 'task_1']);
    // Attached by an operator (`resolve --task-id`): that id first, the answer's after it.
    expect(taskIdsOf({ taskId: 'task_9', response: { task_ids: ['gw_1', 'task_1'] } })).toEqual([
      'task_9',
      'gw_1',
      'task_1',
    ]);
    expect(taskIdsOf({ taskId: 'task_1', response: { task_ids: 'nope' } })).toEqual(['task_1']);
  });
});
