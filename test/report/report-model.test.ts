import { describe, expect, it } from 'vitest';
import { reportHeader, reportItem } from '../../src/report/model.js';
import { useTempDir } from '../helpers/journal-fixtures.js';
import { seedReportJournal } from '../helpers/report-fixture.js';

const tmp = useTempDir('gbatch-report-');

describe('report model', () => {
  it('totals: estimated over all, actual and delta over settled items only, reserved, overshoot, gateway charge', async () => {
    const journal = tmp.open();
    seedReportJournal(journal);
    const T = Date.UTC(2026, 10, 24, 1, 0, 0);
    const { job, totals } = await reportHeader(journal.store, 'nightly', 5, { startedAt: T, endedAt: T + 90_000 });
    expect(job).toBe('nightly');
    expect(totals).toEqual({
      items: 7,
      by_state: { downloaded: 3, running: 1, rejected: 1, invalid: 1, uncertain: 1 },
      estimated_usd: 2.04, // 0.5 + 0.5 + 1 + 0.01 + 0.01 + 0 + 0.02
      actual_usd: 1.004, // 0.4 + 0.6 + 0.004
      settled_items: 3,
      settled_estimated_usd: 1.01, // v1, v2, c1
      delta_usd: -0.006,
      budget_usd: 5,
      reserved_usd: 1.02, // v3 running (1) + r1 uncertain (0.02)
      overshoot_usd: 0.1, // v2: 0.6 against 0.5
      gateway_charge_usd: 0.41,
      gateway_charged_items: 1,
      unmetered_items: 0,
      started_at: '2026-11-24T01:00:00.000Z',
      ended_at: '2026-11-24T01:01:30.000Z',
      duration_ms: 90_000,
    });
    expect((await reportHeader(journal.store, 'nightly', null)).totals.budget_usd).toBeNull();
  });

  it('by_model groups per model and requested resolution, invalid rows left out', async () => {
    const journal = tmp.open();
    seedReportJournal(journal);
    expect((await reportHeader(journal.store, 'j', null)).by_model).toEqual([
      {
        model: 'chat-large',
        resolution: null,
        items: 1,
        settled_items: 0,
        estimated_usd: 0.02,
        actual_usd: 0,
        delta_usd: 0,
        total_tokens: 0,
      },
      {
        model: 'chat-small',
        resolution: null,
        items: 2,
        settled_items: 1,
        estimated_usd: 0.02,
        actual_usd: 0.004,
        delta_usd: -0.006,
        total_tokens: 1500,
      },
      {
        model: 'video-fast',
        resolution: '720p',
        items: 2,
        settled_items: 2,
        estimated_usd: 1,
        actual_usd: 1,
        delta_usd: 0,
        total_tokens: 258_900,
      },
      {
        model: 'video-pro',
        resolution: '1080p',
        items: 1,
        settled_items: 0,
        estimated_usd: 1,
        actual_usd: 0,
        delta_usd: 0,
        total_tokens: 0,
      },
    ]);
  });

  it('an empty journal has zero totals and no groups', async () => {
    const journal = tmp.open();
    expect(await reportHeader(journal.store, 'empty', null)).toEqual({
      job: 'empty',
      totals: {
        items: 0,
        by_state: {},
        estimated_usd: 0,
        actual_usd: 0,
        delta_usd: 0,
        budget_usd: null,
        reserved_usd: 0,
        settled_items: 0,
        settled_estimated_usd: 0,
        overshoot_usd: 0,
        gateway_charge_usd: null,
        gateway_charged_items: 0,
        unmetered_items: 0,
        started_at: null,
        ended_at: null,
        duration_ms: null,
      },
      by_model: [],
      forecast: null,
    });
  });

  it("reportItem: the contract's fields for a downloaded video", async () => {
    const journal = tmp.open();
    seedReportJournal(journal);
    expect(reportItem(journal.get('v1')!)).toEqual({
      id: 'v1',
      kind: 'video',
      model: 'video-fast',
      state: 'downloaded',
      task_id: 'task-v1',
      resolution: '720p',
      final_resolution: '720p',
      has_reference_video: false,
      estimated_usd: 0.5,
      actual_usd: 0.4,
      total_tokens: 108_900,
      output: 'out/job/v1.mp4',
      sha256: 'a'.repeat(64),
      bytes: 1234,
      error: null,
      attempts: 1,
      auto_resubmits: 0,
      gateway_charge_usd: 0.41,
      overshoot_usd: 0,
      unmetered: false,
      table_usd: 0.41477832,
      mispriced: false,
      source: 'jobs/videos.csv:2',
      submitted_at: null,
      accepted_at: null,
      succeeded_at: null,
      finished_at: null,
      duration_ms: null,
    });
    const T = Date.UTC(2026, 10, 24, 1, 0, 0);
    expect(
      reportItem(journal.get('v1')!, {
        submittedAt: T,
        acceptedAt: T + 40,
        succeededAt: T + 60_000,
        finishedAt: T + 61_500,
      }),
    ).toMatchObject({
      submitted_at: '2026-11-24T01:00:00.000Z',
      accepted_at: '2026-11-24T01:00:00.040Z',
      succeeded_at: '2026-11-24T01:01:00.000Z',
      finished_at: '2026-11-24T01:01:01.500Z',
      duration_ms: 61_500,
    });
  });

  it('reportItem: upgraded resolution, overshoot, reference video', async () => {
    const journal = tmp.open();
    seedReportJournal(journal);
    expect(reportItem(journal.get('v2')!)).toMatchObject({
      resolution: '720p',
      final_resolution: '1080p',
      has_reference_video: true,
      actual_usd: 0.6,
      overshoot_usd: 0.1,
    });
  });

  it('reportItem: unsettled video has no final resolution; text items have no resolution at all', async () => {
    const journal = tmp.open();
    seedReportJournal(journal);
    expect(reportItem(journal.get('v3')!)).toMatchObject({
      state: 'running',
      resolution: '1080p',
      final_resolution: null,
      actual_usd: null,
      overshoot_usd: 0,
    });
    expect(reportItem(journal.get('c1')!)).toMatchObject({
      kind: 'chat',
      resolution: null,
      final_resolution: null,
      actual_usd: 0.004,
      total_tokens: 1500,
      output: 'out/job/results.jsonl',
    });
    expect(reportItem(journal.get('c2')!)).toMatchObject({
      state: 'rejected',
      actual_usd: null,
      error: { status: 400, message: '400 =bad "quote", here' },
    });
    expect(reportItem(journal.get('bad')!)).toMatchObject({
      state: 'invalid',
      model: null,
      task_id: null,
      error: { message: 'line 3: prompt: must not be blank' },
      source: 'jobs/chat.jsonl:3',
    });
  });
});
