// Throughput, ETA and projected cost from a snapshot, and the plain lines' wording and cadence: pure, table-driven.
import { describe, expect, test } from 'vitest';
import { estimateEta, projectCost, rowsPerMinute } from '../../../src/cli/live/estimates.js';
import { plainLine, plainLineDue, plainLogLine, type PlainMark } from '../../../src/cli/live/plain.js';
import type { RunPhase } from '../../../src/core/run-snapshot.js';
import { counts, snapshot, T0 } from '../../helpers/snapshot-fixture.js';

const NO_TASKS = {
  to_send: 0,
  in_flight: 0,
  youngest_age_s: null,
  oldest_age_s: null,
  durations: { count: 0, p50_s: null, p90_s: null, max_s: null },
};
const DURATIONS = { count: 50, p50_s: 240, p90_s: 370, max_s: 455 };

describe('ETA', () => {
  const cases: Array<[string, ReturnType<typeof snapshot>, { seconds: number | null; why?: string }]> = [
    [
      'text only: rows to send at the observed rate',
      snapshot({
        counts: counts({ pending: 590, submitting: 10, downloaded: 400 }),
        recent: { window_s: 300, sent: 300 },
        tasks: NO_TASKS,
      }),
      { seconds: 600 },
    ],
    [
      'too early to tell a rate',
      snapshot({ counts: counts({ pending: 590 }), recent: { window_s: 3, sent: 40 }, tasks: NO_TASKS }),
      { seconds: null, why: 'measuring the rate' },
    ],
    [
      'video tasks running, none finished yet: unknown, not a straight line',
      snapshot({
        counts: counts({ submitted: 10, downloaded: 5 }),
        tasks: { ...NO_TASKS, in_flight: 10, youngest_age_s: 20, oldest_age_s: 80 },
      }),
      { seconds: null, why: 'first video task running for 80s' },
    ],
    [
      'all sent: what the youngest task has left of the 90th percentile',
      snapshot({
        counts: counts({ running: 99, downloaded: 1 }),
        tasks: { to_send: 0, in_flight: 99, youngest_age_s: 100, oldest_age_s: 110, durations: DURATIONS },
      }),
      { seconds: 270 },
    ],
    [
      'videos still to send: the last one sent adds a task duration',
      snapshot({
        counts: counts({ pending: 300, running: 20 }),
        recent: { window_s: 300, sent: 150 },
        tasks: { to_send: 300, in_flight: 20, youngest_age_s: 1, oldest_age_s: 300, durations: DURATIONS },
      }),
      { seconds: 600 + 370 },
    ],
    [
      'a straggler past the longest seen: a quarter of its age again',
      snapshot({
        counts: counts({ running: 1, downloaded: 99 }),
        tasks: { to_send: 0, in_flight: 1, youngest_age_s: 600, oldest_age_s: 600, durations: DURATIONS },
      }),
      { seconds: 150 },
    ],
    [
      'a 429 pause delays tasks in flight too',
      snapshot({
        paused_until: T0 + 12 * 60_000 + 34_000,
        counts: counts({ running: 99, downloaded: 1 }),
        tasks: { to_send: 0, in_flight: 99, youngest_age_s: 100, oldest_age_s: 110, durations: DURATIONS },
      }),
      { seconds: 30 + 270 },
    ],
    ['done', snapshot({ phase: 'done' }), { seconds: 0 }],
    ['stopping', snapshot({ phase: 'stopping' }), { seconds: null, why: 'stopping' }],
  ];
  for (const [name, s, expected] of cases) test(name, () => expect(estimateEta(s)).toEqual(expected));

  test('a video job one minute in is not extrapolated from its first finished row', () => {
    // 1 of 100 finished after 60 s: a straight line says 99 more minutes; the tasks say about 4.
    const s = snapshot({
      started_at: T0,
      now: T0 + 60_000,
      counts: counts({ running: 99, downloaded: 1 }),
      recent: { window_s: 60, finished: 1, sent: 100 },
      tasks: {
        to_send: 0,
        in_flight: 99,
        youngest_age_s: 5,
        oldest_age_s: 58,
        durations: { count: 1, p50_s: 55, p90_s: 240, max_s: 240 },
      },
    });
    expect(estimateEta(s).seconds).toBe(235);
  });
});

describe('throughput and projected cost', () => {
  test('rows per minute over the recent window; none in the first seconds', () => {
    expect(rowsPerMinute(snapshot({ recent: { window_s: 300, finished: 260 } }))).toBe(52);
    expect(rowsPerMinute(snapshot({ recent: { window_s: 4, finished: 30 } }))).toBeNull();
  });

  test('each kind is projected at its own actual/estimate ratio; a kind with nothing settled at its estimate', () => {
    const projection = (text: [number, number, number], video: [number, number, number]) =>
      projectCost(
        snapshot({
          money: {
            by_kind: {
              text: { estimate_usd: text[0], settled_estimate_usd: text[1], settled_actual_usd: text[2] },
              video: { estimate_usd: video[0], settled_estimate_usd: video[1], settled_actual_usd: video[2] },
            },
          },
        }),
      );
    expect(projection([2, 1, 0.5], [50, 0, 0])).toEqual({ usd: 0.5 + 0.5 + 50, ratios: { text: 0.5, video: null } });
    expect(projection([0, 0, 0], [40, 10, 12])).toEqual({ usd: 12 + 30 * 1.2, ratios: { text: null, video: 1.2 } });
    expect(projectCost(snapshot({ money: { by_kind: null } }))).toBeNull();
  });
});

describe('plain lines off a terminal', () => {
  test('one timestamped line with the phase, progress, pace, counts, money and errors', () => {
    const s = snapshot();
    expect(plainLine(s, s.now)).toBe(
      '[gbatch] 2026-11-24T01:12:04Z submitting | 612/2300 finished (26%) | 52 rows/min, ETA 31m17s | ' +
        'pending 1524, submitting 8, submitted 40, running 116, succeeded 12, downloaded 590, failed 6, rejected 4 | ' +
        'spent $18.4000 + reserved $9.1000 of $60.00 | projected $48.11 | errors: retried 429 rate_limit_exceeded x41, task failed Simulated upstream failure x6',
    );
    const paused = snapshot({ paused_until: s.now + 9_000, errors: [], money: { budget_usd: null, by_kind: null } });
    expect(plainLine(paused, s.now)).toMatch(
      /\| spent \$18\.4000 \+ reserved \$9\.1000 \| rate-limited, resuming in 9s$/,
    );
  });

  test("the run's own messages are timestamped the same way", () => {
    expect(plainLogLine('budget $60.000000 in force', T0)).toBe(
      '[gbatch] 2026-11-24T01:00:00Z budget $60.000000 in force',
    );
  });

  test('due on the first snapshot, on a change of phase, and 30 s after the last line, not before', () => {
    const mark: PlainMark = { phase: 'submitting', at: T0 };
    const at = (phase: RunPhase, ms: number) => plainLineDue(mark, snapshot({ phase }), T0 + ms);
    expect(plainLineDue(undefined, snapshot(), T0)).toBe(true);
    expect(at('submitting', 29_999)).toBe(false);
    expect(at('submitting', 30_000)).toBe(true);
    expect(at('waiting', 250)).toBe(true);
    expect(at('done', 250)).toBe(true);
  });

  test('an hour of snapshots four times a second prints ~120 lines plus the phase changes, not 1,800', () => {
    const phases: Array<[number, RunPhase]> = [
      [0, 'submitting'],
      [40 * 60_000 + 10_250, 'waiting'],
      [55 * 60_000 + 20_500, 'downloading'],
      [60 * 60_000, 'done'],
    ];
    let mark: PlainMark | undefined;
    const printedAt: number[] = [];
    for (let ms = 0; ms <= 60 * 60_000; ms += 250) {
      const phase = phases.filter(([from]) => from <= ms).at(-1)![1];
      if (!plainLineDue(mark, snapshot({ phase }), T0 + ms)) continue;
      mark = { phase, at: T0 + ms };
      printedAt.push(ms);
    }
    // Each change of phase prints at once, and the 30 s count starts again from it.
    for (const [from] of phases) expect(printedAt).toContain(from);
    expect(printedAt.length).toBeGreaterThanOrEqual(121);
    expect(printedAt.length).toBeLessThanOrEqual(121 + 3);
    for (let i = 1; i < printedAt.length; i++) {
      const changed = phases.some(([from]) => from === printedAt[i]);
      if (!changed) expect(printedAt[i]! - printedAt[i - 1]!).toBe(30_000);
    }
  });
});
