// `gbatch status`'s views: its text, its JSON and its --check answer are pure functions of the status
// data (src/cli/status/), compared here as strings and objects.
import { describe, expect, it } from 'vitest';
import { ITEM_STATES, type ItemState } from '../../../src/core/states.js';
import { healthOf } from '../../../src/cli/status-check.js';
import type { StatusData } from '../../../src/cli/status/status-data.js';
import { statusJson } from '../../../src/cli/status/status-json.js';
import { checkExitCode, checkLines, statusLines } from '../../../src/cli/status/status-text.js';
import type { ReportTotals } from '../../../src/report/model.js';
import { standingOf } from '../../../src/core/standing.js';
import type { JobAddress } from '../../../src/core/job-address.js';

const JOB_FILE: JobAddress = {
  named: 'jobs/nightly.json',
  namedFindsJournal: true,
  name: 'nightly',
  journal: { adapter: 'sqlite', file: 'state/nightly.db', isDefault: true },
  source: 'jobs/nightly.json',
  sourceFindsJournal: true,
};

const NOW = Date.UTC(2026, 10, 24, 12);
const counts = (some: Partial<Record<ItemState, number>> = {}): Record<ItemState, number> =>
  ({ ...Object.fromEntries(ITEM_STATES.map((s) => [s, 0])), ...some }) as Record<ItemState, number>;
const totals = (over: Partial<ReportTotals> = {}): ReportTotals => ({
  items: 5,
  by_state: {},
  estimated_usd: 2,
  actual_usd: 1.5,
  delta_usd: 0,
  budget_usd: 10,
  reserved_usd: 0.25,
  settled_items: 3,
  settled_estimated_usd: 1.5,
  overshoot_usd: 0,
  gateway_charge_usd: null,
  gateway_charged_items: 0,
  unmetered_items: 0,
  started_at: null,
  ended_at: null,
  duration_ms: null,
  ...over,
});

function status(over: Partial<StatusData> = {}): StatusData {
  const c = over.counts ?? counts({ downloaded: 5 });
  return {
    job: 'nightly',
    file: 'state/nightly.db',
    adapter: 'sqlite',
    named: 'jobs/nightly.json',
    budget: 10,
    totals: totals(),
    timing: {
      started_at: null,
      last_event_at: null,
      elapsed_ms: null,
      video_tasks_succeeded: 0,
      video_task_median_ms: null,
    },
    counts: c,
    attention: { uncertain: [], deferred: [], failed: [], rejected: [], invalid: [] },
    uncertain: [],
    runners: [],
    holder: undefined,
    orphans: { total: 0, counts: {}, rows: [] },
    orphansResent: [],
    lastRun: null,
    forecast: null,
    health: healthOf({
      adapter: 'sqlite',
      counts: c,
      runners: [],
      lastRun: null,
      cancel: undefined,
      createdAt: NOW - 60_000,
      lastError: undefined,
      now: NOW,
    }),
    standing: standingOf({
      counts: c,
      liveRunners: 0,
      cancelled: false,
      lastRun: undefined,
      orphans: { waiting: 0, resendable: [] },
      address: JOB_FILE,
    }),
    ...over,
  };
}

describe('status text', () => {
  it('a finished job: its name, its counts, its money', () => {
    expect(statusLines(status())).toEqual([
      'Job nightly (state/nightly.db)',
      'Finished: 5 downloaded.',
      'downloaded 5',
      'Spent $1.500000, reserved $0.250000, job budget $10.00 (cumulative; headroom $8.250000); estimated in all $2.000000',
    ]);
  });

  it('rows that need a look, listed up to what was read, with the command that helps; outside text made printable', () => {
    const c = counts({ downloaded: 1, failed: 3 });
    const lines = statusLines(
      status({
        counts: c,
        attention: {
          uncertain: [],
          deferred: [],
          rejected: [],
          invalid: [],
          failed: [
            { id: 'row\u001b1', kind: 'video', task_id: 'task-9', error: 'FAILURE' },
            { id: 'row2', kind: 'chat', task_id: null, error: null },
          ],
        },
      }),
    );
    expect(lines.slice(2, 3)).toEqual(['downloaded 1, failed 3']);
    expect(lines.slice(-5)).toEqual([
      '',
      'failed (3): the task failed (refunded) or was abandoned; the next run sends a refunded video failure again on its own (--retry-failed), unless it is orphaned (below); `gbatch retry jobs/nightly.json --failed` has the next run send every one again',
      '  row\\x1b1 task task-9: FAILURE',
      '  row2',
      '  ... 1 more: gbatch report jobs/nightly.json --format csv',
    ]);
  });

  // The deferred and invalid rows' words are the standing's needs, as every other surface tells them.
  it("deferred and invalid rows: each hint is the standing's need", () => {
    const c = counts({ downloaded: 1, deferred: 1, invalid: 1 });
    const lines = statusLines(
      status({
        counts: c,
        attention: {
          uncertain: [],
          deferred: [{ id: 'd1', kind: 'chat', task_id: null, error: null }],
          rejected: [],
          invalid: [{ id: 'i1', kind: 'chat', task_id: null, error: 'line 3: no prompt' }],
          failed: [],
        },
        standing: standingOf({
          counts: c,
          liveRunners: 0,
          cancelled: false,
          lastRun: { ended: true, exitCode: 3, stopReason: 'budget', message: null },
          orphans: { waiting: 0, resendable: [] },
          address: JOB_FILE,
        }),
      }),
    );
    expect(lines.slice(-6)).toEqual([
      '',
      "deferred (1): 1 item(s) deferred by the job's budget: run again with a higher --budget (or --no-budget)",
      '  d1',
      '',
      'invalid (1): 1 manifest row(s) invalid (never sent): fix them in the manifest, then run again; the plan lists each; `gbatch plan jobs/nightly.json --skip-invalid`',
      '  i1: line 3: no prompt',
    ]);
  });

  it('orphaned rows (one changed in its manifest and skipped): not sent on their own; the one command that sends them', () => {
    const c = counts({ downloaded: 1, failed: 2 });
    const s = status({
      counts: c,
      orphans: {
        total: 2,
        counts: { failed: 2 },
        rows: [
          { id: 'v1', state: 'failed', attempts: 1, listing: 'orphaned' },
          { id: 'v2', state: 'failed', attempts: 1, listing: 'orphaned' },
        ],
      },
      // v2 was abandoned while uncertain: retry never sends it, so the command leaves it out.
      orphansResent: ['v1'],
    });
    expect(statusLines(s).slice(-5)).toEqual([
      '',
      "orphaned (2: failed 2): in none of the manifests of the job's last run, or changed in one and skipped (--skip-changed): no run sends them on its own; kept with their history",
      '  v1 failed, 1 attempt(s)',
      '  v2 failed, 1 attempt(s)',
      "  to send them all the same: gbatch retry jobs/nightly.json v1   (the next run sends each, one changed in its manifest with the manifest's new content)",
    ]);
    expect(statusJson(s).orphaned).toEqual({
      count: 2,
      by_state: { failed: 2 },
      items: [
        { id: 'v1', state: 'failed', attempts: 1 },
        { id: 'v2', state: 'failed', attempts: 1 },
      ],
      note: "in none of the manifests of the job's last run, or changed in one and skipped (--skip-changed): no run sends them on its own",
      send: 'gbatch retry jobs/nightly.json v1',
    });
  });

  it('no budget, and an empty journal', () => {
    const lines = statusLines(status({ budget: null, job: null, counts: counts() }));
    expect(lines[0]).toBe('Job ? (state/nightly.db)');
    expect(lines[1]).toBe('No items in the journal yet.');
    expect(lines[2]).toBe('no items');
    expect(lines[3]).toMatch(/, no budget; estimated in all/);
  });
});

describe('status: the forecast the job started with', () => {
  const forecast = (basisRows: number) => ({
    at: NOW,
    total: { p50Usd: 1.25, p90Usd: 1.75, basisRows, rowsWithoutHistory: basisRows === 0 ? 3 : 0 },
    models: {},
  });

  it('text: P50, P90 and the settled rows it drew on, or that there was no history', () => {
    expect(statusLines(status({ forecast: forecast(7) }))).toContain(
      `Forecast at the start (${new Date(NOW).toISOString()}): P50 $1.250000, P90 $1.750000; 7 settled row(s) like these`,
    );
    expect(statusLines(status({ forecast: forecast(0) })).join('\n')).toMatch(
      /P50 \$1\.250000, P90 \$1\.750000; no history: table estimate/,
    );
    expect(statusLines(status()).join('\n')).not.toMatch(/Forecast/);
  });

  it('--json: the forecast object, null without one', () => {
    expect(statusJson(status({ forecast: forecast(7) })).forecast).toEqual({
      made_at: new Date(NOW).toISOString(),
      p50_usd: 1.25,
      p90_usd: 1.75,
      basis_rows: 7,
      rows_without_history: 0,
    });
    expect(statusJson(status()).forecast).toBeNull();
  });
});

describe('status --check', () => {
  it('nothing to do: exit 0 and one ok line naming what run would exit', () => {
    const s = status();
    expect(checkExitCode(s)).toBe(0);
    expect(checkLines(s)).toEqual(['ok: nothing needs an operator (`gbatch run` would exit 0 now)']);
  });

  // One story with `status`: the rows it lists for a person are named here too, with why they page no one.
  it('a refused row: exit 0, and the row named as a decision that waits, not a health problem', () => {
    const s = status({ counts: counts({ downloaded: 4, rejected: 1 }) });
    expect(checkExitCode(s)).toBe(0);
    expect(checkLines(s)).toEqual([
      'ok: nothing needs an operator (`gbatch run` would exit 1 now)',
      'waits for a person, not a health problem (nothing is stuck, billed twice or held back; it waits until someone decides): 1 item(s) refused by the gateway: fix the cause, then send them again; `gbatch status jobs/nightly.json` lists them with their commands',
    ]);
  });

  // A final serve batch's journal never changes: no run is due, so none is said to exit anything.
  it('a final serve batch: the ok line says it is final, no run', () => {
    const address: JobAddress = {
      named: 'batch_0123456789abcdef01234567',
      name: 'batch_0123456789abcdef01234567',
      journal: { adapter: 'sqlite', file: 'data/journals/batch_0123456789abcdef01234567.db', isDefault: false },
      batch: 'batch_0123456789abcdef01234567',
    };
    const c = counts({ downloaded: 2 });
    const s = status({
      counts: c,
      standing: standingOf({
        counts: c,
        liveRunners: 0,
        cancelled: false,
        lastRun: { ended: true, exitCode: 0, stopReason: null, message: null },
        orphans: { waiting: 0, resendable: [] },
        finalBatch: { batch: 'batch_0123456789abcdef01234567', status: 'completed' },
        address,
      }),
    });
    expect(checkExitCode(s)).toBe(0);
    expect(checkLines(s)).toEqual([
      'ok: nothing needs an operator (no run: the gbatch serve batch batch_0123456789abcdef01234567 is completed and never changes; to send its rows again, submit a new batch with them)',
    ]);
  });

  it('uncertain rows: exit 1 and one line each reason', () => {
    const c = counts({ uncertain: 2 });
    const s = status({
      counts: c,
      health: healthOf({
        adapter: 'sqlite',
        counts: c,
        runners: [],
        lastRun: null,
        cancel: undefined,
        createdAt: undefined,
        lastError: undefined,
        now: NOW,
      }),
    });
    expect(checkExitCode(s)).toBe(1);
    expect(checkLines(s)).toEqual(['2 item(s) uncertain (the gateway may have them): decide with `gbatch resolve`']);
  });
});

describe('status --json', () => {
  it('one object in a stable order; uncertain rows carry when they left and how their prompt starts', () => {
    const c = counts({ uncertain: 1 });
    const json = statusJson(
      status({
        counts: c,
        attention: {
          uncertain: [{ id: 'u1', kind: 'chat', task_id: null, error: 'timeout' }],
          deferred: [],
          failed: [],
          rejected: [],
          invalid: [],
        },
        uncertain: [{ id: 'u1', kind: 'chat', submittedAt: NOW, promptStart: 'Hello', error: 'timeout' }],
      }),
    );
    expect(Object.keys(json)).toEqual([
      'job',
      'state',
      'counts',
      'runner',
      'runners',
      'estimated_usd',
      'actual_usd',
      'reserved_usd',
      'budget_usd',
      'unmetered_items',
      'forecast',
      'started_at',
      'last_event_at',
      'elapsed_ms',
      'video_tasks_succeeded',
      'video_task_median_ms',
      'attention',
      'orphaned',
      'last_run',
      'would_exit',
      'needs_operator',
      'liveness',
      'durations',
      'last_error',
      'cancelled',
      'standing',
    ]);
    expect((json.attention as Record<string, unknown>).uncertain).toEqual([
      {
        id: 'u1',
        kind: 'chat',
        task_id: null,
        error: 'timeout',
        submitted_at: new Date(NOW).toISOString(),
        prompt_start: 'Hello',
      },
    ]);
    expect(json).toMatchObject({
      job: 'nightly',
      state: 'state/nightly.db',
      runner: null,
      budget_usd: 10,
      would_exit: 4,
      orphaned: { count: 0 },
    });
  });
});
