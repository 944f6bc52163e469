// The live view's frame is a pure function of a snapshot, a width and the time: compared as strings.
import { describe, expect, test } from 'vitest';
import { displayWidth } from '../../../src/cli/live/format.js';
import { renderFrame } from '../../../src/cli/live/frame.js';
import { counts, snapshot, T0 } from '../../helpers/snapshot-fixture.js';

const NOW = T0 + 12 * 60_000 + 4_000;

const DONE = snapshot({
  phase: 'done',
  counts: counts({ downloaded: 2_290, failed: 6, rejected: 4 }),
  lanes: { download: { in_flight: 0, queued: 0, done: 700, failed: 0 } },
  tasks: { to_send: 0, in_flight: 0, youngest_age_s: null, oldest_age_s: null },
  money: { reserved_usd: 0, actual_usd: 46.02 },
});
const ZERO = snapshot({
  counts: counts(),
  total: 0,
  errors: [],
  phase: 'settling',
  lanes: {
    submit: { queued: 0, in_flight: 0, done: 0, retries: 0, waiting_for_budget: false },
    poll: { tasks: 0, polls: 0 },
    download: { in_flight: 0, queued: 0, done: 0, failed: 0 },
  },
  money: { by_kind: null, actual_usd: 0, reserved_usd: 0, budget_usd: null },
  recent: { window_s: 2, finished: 0, sent: 0 },
  tasks: {
    to_send: 0,
    in_flight: 0,
    youngest_age_s: null,
    oldest_age_s: null,
    durations: { count: 0, p50_s: null, p90_s: null, max_s: null },
  },
});
const PAUSED = snapshot({ paused_until: NOW + 12_000, money: { budget_usd: null } });
const HOSTILE = snapshot({
  job: '長い名前のジョブ'.repeat(6),
  errors: [{ cause: 'rejected 400 invalid_request', count: 3, last_message: '漢字の説明'.repeat(30), last_at: NOW }],
});

describe('a mid-run frame at 80 columns', () => {
  test('shows lanes, rate, ETA, the budget as a bar, the projected cost and the errors by cause', () => {
    expect(renderFrame(snapshot(), 80, NOW)).toEqual([
      'gbatch · campaign · submitting · 12m04s elapsed',
      '[█████████▒▒▒░░░░░░░░░░░░░░░░░░░░░░░░] 612/2,300 26% · 52 rows/min · ETA 31m17s',
      'submit    8 in flight · 1,524 queued · 768 sent · 41 retried',
      'poll      156 tasks · oldest 7m12s · typical 4m00s · 3,210 polls',
      'download  2 active · 1 queued · 98 done · 0 failed',
      'budget    [████████▒▒▒▒░░░░░░░░░░░░░░░] $18.40 spent + $9.10 reserved of $60.00',
      'projected $48.11 for the job · text actual/estimate 0.50',
      'errors    ×41 retried 429 rate_limit_exceeded: Rate limit exceeded, retry afte…',
      '          ×6 task failed Simulated upstream failure: Simulated upstream failur…',
    ]);
  });

  test('ASCII bars for a terminal without UTF-8', () => {
    const [, progress, , , , budget] = renderFrame(snapshot(), 80, NOW, { ascii: true });
    // 36 cells: 612 of 2,300 finished (9 cells), 164 more in flight (3), the rest to do (24).
    expect(progress).toBe(
      `[${'#'.repeat(9)}${'+'.repeat(3)}${'-'.repeat(24)}] 612/2,300 26% · 52 rows/min · ETA 31m17s`,
    );
    expect(budget).toBe('budget    [########++++---------------] $18.40 spent + $9.10 reserved of $60.00');
  });
});

describe('narrow and wide terminals', () => {
  test('at 40 columns the lines keep their first facts and drop the rest', () => {
    expect(renderFrame(snapshot(), 40, NOW)).toEqual([
      'gbatch · campaign · submitting',
      '[██▒░░░░░░] 612/2,300 26% · 52 rows/min',
      'submit    8 in flight · 1,524 queued',
      'poll      156 tasks · oldest 7m12s',
      'download  2 active · 1 queued · 98 done',
      'budget    $18.40 spent + $9.10 reserve…',
      'projected $48.11 for the job',
      'errors    ×41 retried 429 rate_limit_e…',
      '          ×6 task failed Simulated ups…',
    ]);
  });

  test('at 160 columns nothing is cut, and the bars stop growing', () => {
    const lines = renderFrame(snapshot(), 160, NOW);
    expect(lines[1]).toBe(
      `[${'█'.repeat(13)}${'▒'.repeat(3)}${'░'.repeat(34)}] 612/2,300 26% · 52 rows/min · ETA 31m17s`,
    );
    expect(lines[6]).toBe('projected $48.11 for the job · text actual/estimate 0.50 · video actual/estimate 0.94');
    expect(lines[8]).toBe(
      '          ×6 task failed Simulated upstream failure: Simulated upstream failure; the reserved amount is refunded',
    );
  });

  const cases = { mid: snapshot(), done: DONE, zero: ZERO, paused: PAUSED, hostile: HOSTILE };
  for (const [name, s] of Object.entries(cases)) {
    for (const width of [12, 20, 40, 80, 160]) {
      test(`${name} at ${width} columns: every line under the width`, () => {
        for (const line of renderFrame(s, width, NOW)) expect(displayWidth(line), line).toBeLessThan(width);
      });
    }
  }
});

describe('states of a run', () => {
  test('a 429 pause shows a countdown that moves with the clock, between snapshots too', () => {
    expect(renderFrame(PAUSED, 80, NOW)).toContain('paused    429: account paused, resuming in 12s');
    expect(renderFrame(PAUSED, 80, NOW + 4_500)).toContain('paused    429: account paused, resuming in 8s');
    expect(renderFrame(PAUSED, 80, NOW + 12_000).some((l) => l.startsWith('paused'))).toBe(false);
  });

  test('a lane held back by the budget says so', () => {
    const held = snapshot({
      counts: counts({ pending: 785, submitted: 195, succeeded: 1_320 }),
      lanes: { submit: { queued: 785, in_flight: 0, done: 1_515, retries: 43, waiting_for_budget: true } },
    });
    expect(renderFrame(held, 100, NOW)[2]).toBe(
      'submit    0 in flight · waiting for budget headroom · 785 queued · 1,515 sent · 43 retried',
    );
    expect(renderFrame(held, 40, NOW)[2]).toBe('submit    0 in flight');
  });

  test('without a budget: the spend, no bar', () => {
    expect(renderFrame(PAUSED, 80, NOW)[5]).toBe('spend     $18.40 spent + $9.10 reserved · no budget');
  });

  test('every row finished: a full bar, no ETA, and the clock stopped', () => {
    expect(renderFrame(DONE, 80, NOW + 9_000).slice(0, 5)).toEqual([
      'gbatch · campaign · done · 12m04s elapsed',
      `[${'█'.repeat(46)}] 2,300/2,300 100% · 52 rows/min`,
      'submit    0 in flight · 0 queued · 768 sent · 41 retried',
      'poll      0 tasks · typical 4m00s · 3,210 polls',
      'download  0 active · 0 queued · 700 done · 0 failed',
    ]);
  });

  test('zero rows: an empty bar, no projection, no errors', () => {
    expect(renderFrame(ZERO, 60, NOW, { ascii: true })).toEqual([
      'gbatch · campaign · settling · 12m04s elapsed',
      `[${'-'.repeat(41)}] 0/0 0% · ETA 0s`,
      'submit    0 in flight · 0 queued · 0 sent · 0 retried',
      'poll      0 tasks · 0 polls',
      'download  0 active · 0 queued · 0 done · 0 failed',
      'spend     $0.00 spent + $0.00 reserved · no budget',
    ]);
  });

  test('before the first snapshot: one line while the manifests are read', () => {
    expect(renderFrame(undefined, 80, NOW)).toEqual(['gbatch · reading manifests…']);
  });
});

describe('the forecast the job started with', () => {
  const LEARNED = { p50Usd: 48.1329, p90Usd: 52.9377, basisRows: 640, rowsWithoutHistory: 3 };
  const UNLEARNED = { p50Usd: 0.132939, p90Usd: 0.132939, basisRows: 0, rowsWithoutHistory: 24 };

  test('from history: P50, P90 and the settled rows it drew on, below the money lines', () => {
    const frame = renderFrame(snapshot(), 80, NOW, { forecast: LEARNED });
    const at = frame.findIndex((l) => l.startsWith('projected'));
    expect(frame[at + 1]).toBe('forecast  P50 $48.13 · P90 $52.94 (640 rows like these)');
    expect(frame.length).toBe(renderFrame(snapshot(), 80, NOW).length + 1);
  });

  test('without history: says so, and the table estimate it uses', () => {
    const frame = renderFrame(snapshot(), 80, NOW, { forecast: UNLEARNED });
    expect(frame).toContain("forecast  no history · the table's estimate $0.1329 is used");
  });

  test('narrow: the line keeps its first fact and never wraps', () => {
    for (const forecast of [LEARNED, UNLEARNED]) {
      const line = renderFrame(snapshot(), 30, NOW, { forecast }).find((l) => l.startsWith('forecast'))!;
      expect(displayWidth(line)).toBeLessThan(30);
      expect(line).toBe(forecast === LEARNED ? 'forecast  P50 $48.13' : 'forecast  no history');
    }
  });
});
