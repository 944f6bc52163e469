// How `run` shows its progress on stderr: a frame redrawn in place on a terminal, timestamped plain
// lines elsewhere, NDJSON for other tools, or nothing but the run's own log lines.
import type { EventEmitter } from 'node:events';
import { printable } from '../../core/printable.js';
import type { RunEvents } from '../../pipeline/index.js';
import type { RunSnapshot } from '../../core/run-snapshot.js';
import { estimateEta, projectCost, rowsPerMinute } from './estimates.js';
import { plainLine, plainLineDue, plainLogLine, type PlainMark } from './plain.js';
import { logLine, type ProgressStream, type ProgressView } from './view.js';

export const PROGRESS_MODES = ['auto', 'live', 'plain', 'json', 'none'] as const;
export type ProgressMode = Exclude<(typeof PROGRESS_MODES)[number], 'auto'>;

/**
 * What `auto` means here: live on a terminal, plain lines anywhere else; `--quiet` is `none` unless `--progress` says
 * otherwise.
 */
export function chooseProgressMode(
  flag: string | undefined,
  quiet: boolean,
  stream: { isTTY?: boolean },
  env: NodeJS.ProcessEnv,
): ProgressMode {
  if (flag !== undefined && flag !== 'auto') return flag as ProgressMode;
  if (quiet) return 'none';
  return stream.isTTY === true && env.TERM !== 'dumb' ? 'live' : 'plain';
}

/** Unicode bars unless the locale says the terminal is not UTF-8 (or it is the Linux console). */
export function wantsAscii(env: NodeJS.ProcessEnv): boolean {
  if (env.TERM === 'linux') return true;
  const locale = env.LC_ALL || env.LC_CTYPE || env.LANG || '';
  return locale !== '' && !/utf-?8/i.test(locale);
}

/** One NDJSON line: the snapshot with what the view derives from it. */
export function snapshotJson(s: RunSnapshot): string {
  const eta = estimateEta(s);
  const rate = rowsPerMinute(s);
  const projection = projectCost(s);
  return JSON.stringify({
    ...s,
    rows_per_min: rate === null ? null : Math.round(rate * 10) / 10,
    eta_s: eta.seconds === null ? null : Math.round(eta.seconds),
    projected_total_usd: projection === null ? null : Math.round(projection.usd * 1e6) / 1e6,
  });
}

/** Resolves once the view listens; the live view's modules (log-update and its own) are loaded only for it. */
export async function attachProgress(
  events: EventEmitter<RunEvents>,
  mode: ProgressMode,
  stream: ProgressStream,
  options: { now?: () => number; ascii?: boolean; jsonEveryMs?: number } = {},
): Promise<ProgressView> {
  const now = options.now ?? Date.now;
  switch (mode) {
    case 'none':
      events.on('log', (line) => stream.write(`${logLine(line)}\n`));
      return { finish: () => undefined };
    case 'plain': {
      let last: PlainMark | undefined;
      events.on('log', (line) => stream.write(`${plainLogLine(printable(line), now())}\n`));
      events.on('snapshot', (s) => {
        const at = now();
        if (!plainLineDue(last, s, at)) return;
        last = { phase: s.phase, at };
        stream.write(`${printable(plainLine(s, at))}\n`);
      });
      return { finish: () => undefined };
    }
    case 'json': {
      let lastAt = -Infinity;
      const every = options.jsonEveryMs ?? 1000;
      events.on('log', (line) => stream.write(`${JSON.stringify({ type: 'log', at: now(), message: line })}\n`));
      events.on('snapshot', (s) => {
        const at = now();
        if (s.phase !== 'done' && at - lastAt < every) return;
        lastAt = at;
        stream.write(`${snapshotJson(s)}\n`);
      });
      return { finish: () => undefined };
    }
    case 'live': {
      const { liveView } = await import('./live-view.js');
      return liveView(events, stream, now, options.ascii === true);
    }
  }
}
