// The notifier's pure parts: the body (Slack's `text` beside the fields; the key never in it), when a
// webhook is tried again, which budget threshold a run has crossed, and the flags' checks.
import { describe, expect, test } from 'vitest';
import { ITEM_STATES, type ItemState } from '../../src/core/states.js';
import { createRedactor } from '../../src/gateway/redact.js';
import { attentionFor, runEndedBody, type RunSummary } from '../../src/notify/body.js';
import { standingOf } from '../../src/core/standing.js';
import { startedJobAddress } from '../../src/job/advice.js';
import { crossedThreshold, DEFAULT_SEND_POLICY, nextStep, thresholdPct } from '../../src/notify/policy.js';
import { thresholdBody, type ThresholdCrossing } from '../../src/notify/threshold-body.js';
import { displayUrl, parseNotifySettings, parseThresholds } from '../../src/notify/targets.js';
import { UsageError } from '../../src/job/options.js';
import { resolveJob } from '../../src/job/job.js';
import { writeFileSync } from 'node:fs';
import { workspace } from '../helpers/workspace.js';

const KEY = 'sk-notify-Zq81-distinctive-key';
const redact = createRedactor([KEY]);

function counts(partial: Partial<Record<ItemState, number>>): Record<ItemState, number> {
  return Object.fromEntries(ITEM_STATES.map((s) => [s, partial[s] ?? 0])) as Record<ItemState, number>;
}

const NIGHTLY = startedJobAddress('jobs/nightly.json', 'state/nightly.db', undefined, false);

/** A run's summary; its standing as the run's end works it out from the summary's own figures. */
function summary(over: Partial<RunSummary> = {}): RunSummary {
  const base: Omit<RunSummary, 'standing'> = {
    job: 'nightly',
    exitCode: 3,
    meaning: "Stopped by the job's budget: some items are deferred.",
    stopReason: 'budget',
    counts: counts({ downloaded: 7, deferred: 2, failed: 1 }),
    spendUsd: 4.5,
    reservedUsd: 0,
    budgetUsd: 5,
    estimateUsd: 6.25,
    autoRetried: { failed: 0, rejected: 0 },
    startedAt: Date.UTC(2026, 0, 2, 1, 0, 0),
    endedAt: Date.UTC(2026, 0, 2, 1, 14, 3),
    journal: 'state/nightly.db',
    outDir: 'out/nightly',
    resultsPath: 'out/nightly/results.jsonl',
    address: NIGHTLY,
    host: 'build-1',
    ...over,
  };
  const standing = standingOf({
    counts: base.counts,
    liveRunners: 0,
    cancelled: false,
    lastRun: { ended: true, exitCode: base.exitCode, stopReason: base.stopReason, message: null },
    orphans: { waiting: 0, resendable: [] },
    autoRetried: base.autoRetried,
    address: base.address,
  });
  return { ...base, standing, ...over };
}

describe('run-ended body', () => {
  test('the contract fields, a text line for Slack-style webhooks, and what needs attention', () => {
    const body = runEndedBody(summary(), redact);
    expect(body).toMatchObject({
      event: 'run-ended',
      job: 'nightly',
      exit_code: 3,
      stop_reason: 'budget',
      spend_usd: 4.5,
      budget_usd: 5,
      estimate_usd: 6.25,
      budget_used_pct: 90,
      duration_s: 843,
      results: 'out/nightly/results.jsonl',
      report: 'gbatch report jobs/nightly.json',
    });
    expect(body.counts).toMatchObject({ downloaded: 7, deferred: 2, failed: 1, pending: 0 });
    expect(body.text.split('\n')[0]).toBe("gbatch nightly: exit 3: Stopped on the job's budget: 2 item(s) deferred.");
    expect(body.text).toContain('spent $4.50 of a $5.00 budget (90%), estimate $6.25; took 14m 3s');
    expect(body.attention).toEqual([
      '1 item(s) failed and no run sends them again on its own (`gbatch retry jobs/nightly.json --failed`)',
      "2 item(s) deferred by the job's budget: run again with a higher --budget (or --no-budget)",
    ]);
    expect(body.standing).toMatchObject({
      kind: 'budget',
      sentence: "Stopped on the job's budget: 2 item(s) deferred.",
    });
  });

  test('the API key never leaves, even when a text the summary carries quotes it', () => {
    const leaky = summary({ meaning: `Stopped: the gateway said "bad key ${KEY}"`, job: `job-${KEY}` });
    const json = JSON.stringify(runEndedBody(leaky, redact));
    expect(json).not.toContain(KEY);
    expect(json).not.toContain('Zq81');
    expect(json).toContain('[redacted]');
    const threshold = JSON.stringify(
      thresholdBody(
        {
          job: `j ${KEY}`,
          basis: 'billed',
          thresholdPct: 80,
          billedUsd: 4,
          reservedUsd: 1,
          budgetUsd: 5,
          counts: counts({}),
          at: 0,
          host: 'h',
        },
        redact,
      ),
    );
    expect(threshold).not.toContain('Zq81');
  });

  test('no budget: the money line says so; nothing open, nothing to attend to', () => {
    const body = runEndedBody(
      summary({
        exitCode: 0,
        meaning: 'Done: every item is finished.',
        budgetUsd: null,
        counts: counts({ downloaded: 3 }),
      }),
      redact,
    );
    expect(body.budget_used_pct).toBeNull();
    expect(body.text).toContain('spent $4.50 (no budget)');
    expect(body.attention).toEqual([]);
  });

  test('attention names the command for each kind of trouble', () => {
    const lines = attentionFor(
      summary({
        address: startedJobAddress('my rows.csv', '/srv/j.db', undefined, true),
        exitCode: 4,
        stopReason: null,
        counts: counts({ uncertain: 2, pending: 3, invalid: 1 }),
      }),
    );
    expect(lines).toEqual([
      "2 item(s) uncertain (the gateway may have them): find each in the gateway's dashboard, then send it again or give it up (`gbatch resolve --state /srv/j.db --all-uncertain --resubmit` or `gbatch resolve --state /srv/j.db --all-uncertain --abandon`)",
      "1 manifest row(s) invalid (never sent): fix them in the manifest, then run again; the plan lists each (`gbatch plan 'my rows.csv' --skip-invalid`)",
      "carry on: `gbatch run 'my rows.csv' --state /srv/j.db`",
    ]);
  });

  test('rows the next run sends again on its own get no retry command, and are said to need nothing', () => {
    const ended = (autoRetried: RunSummary['autoRetried'], partial: Partial<Record<ItemState, number>>) =>
      runEndedBody(summary({ exitCode: 1, counts: counts(partial), autoRetried }), redact);
    const allAuto = ended({ failed: 2, rejected: 0 }, { downloaded: 5, failed: 2 });
    expect(allAuto.attention).toEqual([]);
    expect(allAuto.auto_retried).toEqual({ failed: 2, rejected: 0 });
    expect(allAuto.text).toContain(
      '2 failed: the next run sends them again on its own (--retry-failed); nothing to do',
    );
    expect(allAuto.text).not.toContain('gbatch retry');
    const some = ended({ failed: 2, rejected: 1 }, { failed: 3, rejected: 2 });
    expect(some.attention).toEqual([
      '1 item(s) failed and no run sends them again on its own (`gbatch retry jobs/nightly.json --failed`)',
      '1 item(s) refused by the gateway: fix the cause, then send them again (`gbatch retry jobs/nightly.json --rejected`)',
    ]);
    expect(some.text).toContain(
      '2 failed and 1 rejected (408/425): the next run sends them again on its own (--retry-failed); nothing to do',
    );
  });
});

describe('retry policy', () => {
  const policy = DEFAULT_SEND_POLICY;
  const half = () => 0.5;
  test('2xx is done; 5xx, network errors and timeouts are tried again with a growing backoff', () => {
    expect(nextStep({ status: 204 }, 1, 0, policy, 0, half)).toEqual({ kind: 'done' });
    expect(nextStep({ status: 500 }, 1, 0, policy, 0, half)).toEqual({ kind: 'retry', delayMs: 250 });
    expect(nextStep({ status: 503 }, 3, 0, policy, 0, half)).toEqual({ kind: 'retry', delayMs: 1000 });
    expect(nextStep({ error: 'ECONNREFUSED' }, 2, 0, policy, 0, half)).toEqual({ kind: 'retry', delayMs: 500 });
    expect(nextStep({ status: 500 }, 20, 0, policy, 0, () => 1)).toEqual({ kind: 'retry', delayMs: policy.maxDelayMs });
  });
  test('a 4xx is not asked again, except 429, which waits its Retry-After (capped)', () => {
    expect(nextStep({ status: 404 }, 1, 0, policy, 0, half)).toEqual({
      kind: 'give-up',
      reason: 'HTTP 404, not retried',
    });
    expect(nextStep({ status: 429, retryAfter: '3' }, 1, 0, policy, 0, half)).toEqual({ kind: 'retry', delayMs: 3000 });
    expect(nextStep({ status: 429, retryAfter: '600' }, 1, 0, policy, 0, half)).toEqual({
      kind: 'retry',
      delayMs: policy.maxDelayMs,
    });
  });
  test('a wait that would end past the total bound gives up instead', () => {
    expect(nextStep({ status: 500 }, 4, 29_000, policy, 0, () => 1)).toEqual({
      kind: 'give-up',
      reason: 'HTTP 500 after 4 attempt(s)',
    });
  });
});

describe('budget thresholds', () => {
  test('a threshold fires when crossed after the run started, once; several at once announce the highest', () => {
    expect(crossedThreshold([50, 80, 100], 10, 49.9, new Set())).toBeUndefined();
    expect(crossedThreshold([50, 80, 100], 10, 85, new Set())).toEqual({ announce: 80, covers: [50, 80] });
    expect(crossedThreshold([50, 80, 100], 10, 85, new Set([50, 80]))).toBeUndefined();
    // Already past at the start (an earlier night crossed it): not announced again.
    expect(crossedThreshold([50, 80, 100], 60, 90, new Set())).toEqual({ announce: 80, covers: [80] });
  });
  test('--notify-at counts what was billed, never reservations; --notify-reserved-at counts both', () => {
    // The first seconds of a night: nothing answered yet, most of the budget reserved.
    expect(thresholdPct('billed', { actualUsd: 0, reservedUsd: 39.77 }, 50)).toBe(0);
    expect(thresholdPct('billed', { actualUsd: 3, reservedUsd: 1 }, 5)).toBe(60);
    expect(thresholdPct('reserved', { actualUsd: 3, reservedUsd: 1 }, 5)).toBe(80);
    expect(thresholdPct('billed', { actualUsd: 0, reservedUsd: 1 }, 0)).toBe(0);
    expect(thresholdPct('reserved', { actualUsd: 0, reservedUsd: 1 }, 0)).toBe(Infinity);
  });
  test('the body names the figures it counts, and the ones it does not', () => {
    const crossing = (basis: ThresholdCrossing['basis']): ThresholdCrossing => ({
      job: 'nightly',
      basis,
      thresholdPct: 80,
      billedUsd: 40.12,
      reservedUsd: 3.1,
      budgetUsd: 50,
      counts: counts({ downloaded: 7 }),
      at: 0,
      host: 'h',
    });
    const billed = thresholdBody(crossing('billed'), redact);
    expect(billed).toMatchObject({ event: 'budget-threshold', basis: 'billed', billed_pct: 80.2, spend_usd: 40.12 });
    expect(billed.text).toBe(
      'gbatch nightly: 80% of the $50.00 budget billed: $40.12 charged for answered rows (settled or not); the $3.10 reserved for requests in flight is not counted; the run goes on',
    );
    const reserved = thresholdBody(crossing('reserved'), redact);
    expect(reserved).toMatchObject({
      event: 'budget-reserved-threshold',
      basis: 'reserved',
      committed_pct: 86.4,
      committed_usd: 43.22,
    });
    expect(reserved.text).toBe(
      'gbatch nightly: 80% of the $50.00 budget reserved or billed (an early warning, --notify-reserved-at): $40.12 billed, $3.10 reserved for requests in flight (the most they may cost, not a charge); the run goes on',
    );
  });
});

describe('flags', () => {
  test('URLs must be http(s); the error never repeats the URL (its path may be its secret)', () => {
    expect(
      parseNotifySettings({ notify: ['https://hooks.example/services/T0/B0/secret'], 'notify-at': '80,50,80' }),
    ).toEqual({ urls: ['https://hooks.example/services/T0/B0/secret'], thresholds: [50, 80], reservedThresholds: [] });
    for (const bad of ['ftp://host/secret-token', 'not a url secret-token', 'https://user:secret-token@host/']) {
      let error: unknown;
      try {
        parseNotifySettings({ notify: [bad] });
      } catch (err) {
        error = err;
      }
      expect(error).toBeInstanceOf(UsageError);
      expect((error as Error).message).not.toContain('secret-token');
    }
  });
  test('--notify-at takes percentages and needs --notify', () => {
    expect(parseThresholds('50, 80%,100')).toEqual([50, 80, 100]);
    expect(() => parseThresholds('50,abc')).toThrow(/--notify-at/);
    expect(() => parseThresholds('0')).toThrow(UsageError);
    expect(() => parseNotifySettings({ 'notify-at': '50' })).toThrow('--notify-at needs somewhere to send');
    expect(() => parseNotifySettings({ 'notify-reserved-at': '90' })).toThrow(
      '--notify-reserved-at needs somewhere to send',
    );
    expect(() => parseNotifySettings({ notify: ['https://h/'], 'notify-reserved-at': 'x' })).toThrow(
      /`--notify-reserved-at` to be percentages/,
    );
  });
  test('a URL is shown as scheme://host/…', () => {
    expect(displayUrl('https://hooks.slack.com/services/T0/B0/XYZ?x=1')).toBe('https://hooks.slack.com/…');
    expect(displayUrl('http://127.0.0.1:9000/')).toBe('http://127.0.0.1:9000/');
  });
});

describe('job files', () => {
  test("a repeatable option takes a list; the command line's list replaces it; a list for a single-valued option is refused", () => {
    const ws = workspace();
    const job = ws.path('nightly.json');
    writeFileSync(
      job,
      JSON.stringify({
        manifest: 'rows.csv',
        options: { notify: ['https://a.example/x', 'https://b.example/y'], 'notify-at': 80 },
      }),
    );
    const now = new Date();
    expect(resolveJob(job, {}, now, {}).flags).toMatchObject({
      notify: ['https://a.example/x', 'https://b.example/y'],
      'notify-at': '80',
    });
    expect(resolveJob(job, { notify: ['https://c.example/z'] }, now, {}).flags.notify).toEqual(['https://c.example/z']);
    expect(resolveJob(job, { notify: [] }, now, {}).flags.notify).toHaveLength(2);
    writeFileSync(job, JSON.stringify({ manifest: 'rows.csv', options: { budget: [1, 2] } }));
    expect(() => resolveJob(job, {}, now, {})).toThrow(/job field 'options.budget'/);
    writeFileSync(job, JSON.stringify({ manifest: 'rows.csv', options: { out: ['a', 'b'] } }));
    expect(() => resolveJob(job, {}, now, {})).toThrow("job option 'out' takes one value, got a list");
  });
});
