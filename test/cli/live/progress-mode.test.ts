// Which progress `run` shows, and what each mode writes for the events of a run (a stream that records, a clock by
// hand).
import { EventEmitter } from 'node:events';
import { Writable } from 'node:stream';
import { describe, expect, test } from 'vitest';
import {
  attachProgress,
  chooseProgressMode,
  wantsAscii,
  type ProgressMode,
} from '../../../src/cli/live/progress-view.js';
import type { RunEvents } from '../../../src/pipeline/context.js';
import { replay } from '../../helpers/terminal.js';
import { counts, snapshot, T0 } from '../../helpers/snapshot-fixture.js';

describe('choosing the mode', () => {
  const cases: Array<[string, string | undefined, boolean, boolean, string | undefined, ProgressMode]> = [
    ['a terminal', undefined, false, true, 'xterm-256color', 'live'],
    ['a pipe, cron, CI', undefined, false, false, undefined, 'plain'],
    ['a dumb terminal', 'auto', false, true, 'dumb', 'plain'],
    ['--quiet', undefined, true, true, 'xterm', 'none'],
    ['--progress wins over --quiet', 'json', true, true, 'xterm', 'json'],
    ['--progress live off a terminal', 'live', false, false, undefined, 'live'],
    ['--progress plain on a terminal', 'plain', false, true, 'xterm', 'plain'],
  ];
  for (const [name, flag, quiet, isTTY, term, mode] of cases) {
    test(name, () =>
      expect(chooseProgressMode(flag, quiet, { isTTY }, term === undefined ? {} : { TERM: term })).toBe(mode),
    );
  }

  test('ASCII bars when the locale is not UTF-8, or on the Linux console', () => {
    expect(wantsAscii({ LANG: 'C.UTF-8' })).toBe(false);
    expect(wantsAscii({ LC_ALL: 'en_US.utf8', LANG: 'C' })).toBe(false);
    expect(wantsAscii({})).toBe(false);
    expect(wantsAscii({ LANG: 'C' })).toBe(true);
    expect(wantsAscii({ LANG: 'en_US.UTF-8', TERM: 'linux' })).toBe(true);
  });
});

function recorder(): { stream: Writable & { text: string }; lines: () => string[] } {
  const stream = Object.assign(
    new Writable({
      write(chunk, _enc, done) {
        stream.text += String(chunk);
        done();
      },
    }),
    { text: '' },
  );
  return { stream, lines: () => stream.text.trim().split('\n') };
}

describe('what each mode writes', () => {
  test('json: snapshots at most once a second (the final one always), messages as log records', async () => {
    let now = T0;
    const events = new EventEmitter<RunEvents>();
    const { stream, lines } = recorder();
    await attachProgress(events, 'json', stream, { now: () => now });
    for (let i = 0; i < 12; i++, now += 250) events.emit('snapshot', snapshot({ now }));
    events.emit('log', 'budget $5.000000 in force');
    events.emit('snapshot', snapshot({ phase: 'done', now }));
    await new Promise((resolve) => setImmediate(resolve));
    const records = lines().map(
      (l) => JSON.parse(l) as { type: string; now?: number; phase?: string; message?: string },
    );
    expect(records.map((r) => r.type)).toEqual(['snapshot', 'snapshot', 'snapshot', 'log', 'snapshot']);
    expect(records.filter((r) => r.type === 'snapshot').map((r) => r.now! - T0)).toEqual([0, 1_000, 2_000, 3_000]);
    expect(records.at(-1)).toMatchObject({ phase: 'done', eta_s: 0, rows_per_min: 52, projected_total_usd: 48.105263 });
    expect(records[3]).toEqual({ type: 'log', at: T0 + 3_000, message: 'budget $5.000000 in force' });
  });

  test('plain: the first snapshot, each change of phase and the 30 s marks; the messages timestamped', async () => {
    let now = T0;
    const events = new EventEmitter<RunEvents>();
    const { stream, lines } = recorder();
    await attachProgress(events, 'plain', stream, { now: () => now });
    events.emit('log', 'budget $5.000000 in force');
    for (; now < T0 + 65_000; now += 250)
      events.emit('snapshot', snapshot({ now, phase: now < T0 + 40_000 ? 'submitting' : 'waiting' }));
    events.emit('snapshot', snapshot({ now, phase: 'done', counts: counts({ downloaded: 2_300 }) }));
    await new Promise((resolve) => setImmediate(resolve));
    expect(lines().map((l) => l.split(' | ').slice(0, 2).join(' | '))).toEqual([
      '[gbatch] 2026-11-24T01:00:00Z budget $5.000000 in force',
      '[gbatch] 2026-11-24T01:00:00Z submitting | 612/2300 finished (26%)',
      '[gbatch] 2026-11-24T01:00:30Z submitting | 612/2300 finished (26%)',
      '[gbatch] 2026-11-24T01:00:40Z waiting for video tasks | 612/2300 finished (26%)',
      '[gbatch] 2026-11-24T01:01:05Z done | 2300/2300 finished (100%)',
    ]);
  });

  test('live: messages above the frame, the frame redrawn below them, the last one left; nothing left when no run began', async () => {
    const events = new EventEmitter<RunEvents>();
    const { stream } = recorder();
    Object.assign(stream, { isTTY: true, columns: 80, rows: 24 });
    const view = await attachProgress(events, 'live', stream, { now: () => T0 + 12 * 60_000 + 4_000 });
    events.emit('snapshot', snapshot({ phase: 'submitting' }));
    events.emit('log', 'budget $60.000000 in force');
    events.emit('snapshot', snapshot({ phase: 'waiting' }));
    view.finish();
    events.emit('log', 'after the end');
    await new Promise((resolve) => setImmediate(resolve));
    const screen = replay(stream.text, 80, 24).lines.filter((l) => l !== '');
    expect(screen[0]).toBe('[gbatch] budget $60.000000 in force');
    expect(screen[1]).toBe('gbatch · campaign · waiting for video tasks · 12m04s elapsed');
    expect(screen.filter((l) => l.startsWith('gbatch · '))).toHaveLength(1);
    expect(screen.at(-1)).toBe('[gbatch] after the end');

    const failed = recorder();
    Object.assign(failed.stream, { isTTY: true, columns: 80, rows: 24 });
    (await attachProgress(new EventEmitter<RunEvents>(), 'live', failed.stream)).finish();
    await new Promise((resolve) => setImmediate(resolve));
    expect(replay(failed.stream.text, 80, 24).lines.join('')).toBe('');
  });

  test('none: only the messages, as they always were', async () => {
    const events = new EventEmitter<RunEvents>();
    const { stream, lines } = recorder();
    await attachProgress(events, 'none', stream);
    events.emit('snapshot', snapshot());
    events.emit('log', 'gateway unreachable \u001b[2J');
    await new Promise((resolve) => setImmediate(resolve));
    expect(lines()).toEqual(['[gbatch] gateway unreachable \\x1b[2J']);
  });
});
