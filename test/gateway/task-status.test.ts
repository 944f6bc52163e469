import { describe, expect, it } from 'vitest';
import { normaliseTaskStatus, type TaskPhase } from '../../src/gateway/task-status.js';

function shapeA(status: string, extra: Record<string, unknown> = {}): unknown {
  return { code: 'success', message: '', data: { task_id: 'task_1', status, progress: '0%', ...extra } };
}

describe('normaliseTaskStatus: status words', () => {
  it.each<[string, TaskPhase]>([
    ['NOT_START', 'pending'],
    ['SUBMITTED', 'pending'],
    ['QUEUED', 'pending'],
    ['IN_PROGRESS', 'running'],
    ['SUCCESS', 'succeeded'],
    ['FAILURE', 'failed'],
    ['success', 'succeeded'],
    ['not_start', 'pending'],
    ['UNKNOWN', 'pending'],
    ['CANCELLED', 'pending'],
    ['', 'pending'],
  ])('Shape A %s -> %s', (word, phase) => {
    const status = normaliseTaskStatus(shapeA(word), 'task_1');
    expect(status.phase).toBe(phase);
    expect(status.rawStatus).toBe(word);
  });

  it.each<[string, TaskPhase]>([
    ['queued', 'pending'],
    ['unknown', 'pending'],
    ['in_progress', 'running'],
    ['completed', 'succeeded'],
    ['failed', 'failed'],
    ['COMPLETED', 'succeeded'],
    ['In_Progress', 'running'],
    ['expired', 'pending'],
  ])('Shape B %s -> %s', (word, phase) => {
    expect(normaliseTaskStatus({ task_id: 'task_2', status: word }, 'task_2').phase).toBe(phase);
  });
});

describe('normaliseTaskStatus: Shape A fields', () => {
  it('reads progress, result_url, usage, final resolution and the new-api quota', () => {
    const status = normaliseTaskStatus(
      {
        code: 'success',
        data: {
          task_id: 'task_9',
          status: 'SUCCESS',
          progress: '100%',
          result_url: 'https://cdn.example/v.mp4?sig=abc',
          quota: 250_000,
          data: { status: 'completed', usage: { total_tokens: 108_900 }, resolution: '1080p' },
        },
      },
      'task_9',
    );
    expect(status).toEqual({
      taskId: 'task_9',
      phase: 'succeeded',
      rawStatus: 'SUCCESS',
      progress: 100,
      resultUrl: 'https://cdn.example/v.mp4?sig=abc',
      totalTokens: 108_900,
      finalResolution: '1080p',
      gatewayChargeUsd: 0.5,
    });
  });

  it('reads the fail reason and leaves absent fields out', () => {
    const status = normaliseTaskStatus(shapeA('FAILURE', { progress: '37%', fail_reason: 'content policy' }), 'task_1');
    expect(status).toEqual({
      taskId: 'task_1',
      phase: 'failed',
      rawStatus: 'FAILURE',
      progress: 37,
      failReason: 'content policy',
    });
  });

  it('ignores garbage numbers instead of inventing values', () => {
    const status = normaliseTaskStatus(
      shapeA('IN_PROGRESS', { progress: 'half', quota: 'lots', data: { usage: { total_tokens: -5 } } }),
      'task_1',
    );
    expect(status.progress).toBeUndefined();
    expect(status.totalTokens).toBeUndefined();
    expect(status.gatewayChargeUsd).toBeUndefined();
  });
});

describe('normaliseTaskStatus: Shape B fields', () => {
  it('reads url, metadata usage and resolution', () => {
    const status = normaliseTaskStatus(
      {
        task_id: 'task_3',
        status: 'completed',
        url: 'http://127.0.0.1/v.mp4',
        format: 'mp4',
        metadata: { usage: { total_tokens: 5000 }, resolution: '720p' },
      },
      'task_3',
    );
    expect(status).toMatchObject({
      phase: 'succeeded',
      resultUrl: 'http://127.0.0.1/v.mp4',
      totalTokens: 5000,
      finalResolution: '720p',
    });
  });

  it('reads top-level usage, numeric progress and the error message', () => {
    const done = normaliseTaskStatus(
      { task_id: 't', status: 'completed', usage: { total_tokens: 77 }, progress: 100 },
      't',
    );
    expect(done.totalTokens).toBe(77);
    expect(done.progress).toBe(100);
    const failed = normaliseTaskStatus(
      { task_id: 't', status: 'failed', error: { code: 'x', message: 'upstream died' } },
      't',
    );
    expect(failed).toMatchObject({ phase: 'failed', failReason: 'upstream died' });
  });
});

describe('normaliseTaskStatus: neither shape', () => {
  it.each([
    [null],
    ['SUCCESS'],
    [[]],
    [{ code: 'task_not_exist', message: 'no such task' }],
    [{ data: {} }],
    [{ status: 3 }],
  ])('throws on %o', (body) => {
    expect(() => normaliseTaskStatus(body, 'task_x')).toThrow(/task_x.*neither/);
  });
});
