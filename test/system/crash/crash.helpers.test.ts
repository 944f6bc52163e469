// The pure parts of the crash harness: the operator's decision from the ledger, and the kill schedule.
import { describe, expect, test } from 'vitest';
import type { TaskRecord } from '../../../src/sim/index.js';
import type { CampaignRow } from '../../helpers/crash/campaign.js';
import { planKill } from '../../helpers/crash/kill-plan.js';
import { decideResolution } from '../../helpers/crash/operator.js';
import { createPrng } from '../../helpers/crash/prng.js';

const video: CampaignRow = { id: 'video-01', kind: 'video', prompt: 'a boat' };
const chat: CampaignRow = { id: 'chat-01', kind: 'chat', prompt: 'hello' };
const task = (id: string, prompt: string): TaskRecord => ({ id, prompt }) as TaskRecord;

describe('decideResolution', () => {
  test('a video row whose task exists upstream gets that task attached', () => {
    const history = {
      tasks: [task('task_other', 'else'), task('task_1', 'a boat')],
      submissionsByPrompt: { 'a boat': 1 },
    };
    expect(decideResolution(video, history)).toEqual({ kind: 'attach', taskId: 'task_1' });
  });

  test('a video row the gateway never saw is sent again', () => {
    expect(decideResolution(video, { tasks: [], submissionsByPrompt: {} })).toEqual({
      kind: 'resubmit',
      chargedCalls: 0,
    });
  });

  test('a text row is sent again, counting the calls already charged upstream as known duplicates', () => {
    expect(decideResolution(chat, { tasks: [], submissionsByPrompt: { hello: 2 } })).toEqual({
      kind: 'resubmit',
      chargedCalls: 2,
    });
    expect(decideResolution(chat, { tasks: [], submissionsByPrompt: {} })).toEqual({
      kind: 'resubmit',
      chargedCalls: 0,
    });
  });
});

describe('planKill', () => {
  const baseline = { durationMs: 800, requests: 90 };
  const schedule = (seed: number) => {
    const prng = createPrng(seed);
    return Array.from({ length: 10 }, (_, kills) => planKill(kills, 8, prng, baseline));
  };

  test('a seed replays the same schedule; another seed gives another', () => {
    expect(schedule(11)).toEqual(schedule(11));
    expect(schedule(11)).not.toEqual(schedule(12));
  });

  test('opens with the first WAL write, the first video submission and the first request; stops killing after the cap', () => {
    const plans = schedule(5);
    expect(plans.slice(0, 3)).toEqual([
      { at: 'wal-write' },
      { at: 'request', n: 1, videoSubmission: true },
      { at: 'request', n: 1 },
    ]);
    expect(plans.slice(8)).toEqual([{ at: 'never' }, { at: 'never' }]);
    for (const plan of plans) {
      if (plan.at === 'time') expect(plan.ms >= 0 && plan.ms <= 800, `${plan.ms} ms within the run`).toBe(true);
      if (plan.at === 'request') expect(plan.n >= 1 && plan.n <= 90, `request #${plan.n} within the run`).toBe(true);
    }
  });
});
