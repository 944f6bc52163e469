// Progress off a terminal (cron, CI, a pipe): one timestamped line on a change of phase and at most
// every 30 s otherwise, so an hour of cron mail is a few hundred lines, not thousands. Pure.
import type { RunPhase, RunSnapshot } from '../../core/run-snapshot.js';
import { FORWARD_STATES, type ItemState } from '../../core/states.js';
import { usd } from '../../report/table.js';
import { estimateEta, progressOf, projectCost, rowsPerMinute } from './estimates.js';
import { count, duration, money, percent } from './format.js';
import { PHASE_WORDS } from './frame.js';

export const PLAIN_EVERY_MS = 30_000;

/** The forward path, then the states that wait, then the ends off it. */
const ORDER: readonly ItemState[] = [
  ...FORWARD_STATES,
  'deferred',
  'uncertain',
  'failed',
  'rejected',
  'invalid',
  'cancelled',
];

export interface PlainMark {
  phase: RunPhase;
  at: number;
}

/** Whether a plain line is due: the first, a new phase (the last one included), or 30 s since the last. */
export function plainLineDue(
  last: PlainMark | undefined,
  s: RunSnapshot,
  now: number,
  everyMs = PLAIN_EVERY_MS,
): boolean {
  if (!last) return true;
  if (s.phase !== last.phase) return true;
  return now - last.at >= everyMs;
}

/** `[gbatch] 2026-11-24T00:11:05Z submitting | 612/2300 done (26%) | ...`: one line, UTC time first. */
export function plainLine(s: RunSnapshot, now: number): string {
  const { finished, total } = progressOf(s);
  const parts = [`${PHASE_WORDS[s.phase]}`, `${finished}/${total} finished (${percent(finished, total)})`];
  const rate = rowsPerMinute(s);
  const eta = estimateEta(s);
  const pace = [
    rate !== null ? `${count(rate)} rows/min` : undefined,
    s.phase !== 'done' && eta.seconds !== null ? `ETA ${duration(eta.seconds)}` : undefined,
  ].filter((p) => p !== undefined);
  if (pace.length > 0) parts.push(pace.join(', '));
  parts.push(
    ORDER.filter((state) => s.counts[state] > 0)
      .map((state) => `${state} ${s.counts[state]}`)
      .join(', ') || 'no rows',
  );
  const m = s.money;
  parts.push(
    `spent ${usd(m.actual_usd, 4)} + reserved ${usd(m.reserved_usd, 4)}${m.budget_usd !== null ? ` of ${usd(m.budget_usd, 2)}` : ''}`,
  );
  const projection = projectCost(s);
  if (projection && (projection.ratios.text !== null || projection.ratios.video !== null))
    parts.push(`projected ${money(projection.usd)}`);
  if (s.lanes.submit.waiting_for_budget) parts.push('waiting for budget headroom');
  if (s.paused_until !== null && s.paused_until > now)
    parts.push(`rate-limited, resuming in ${Math.ceil((s.paused_until - now) / 1000)}s`);
  const latest = s.errors[0];
  if (latest)
    parts.push(
      `errors: ${s.errors
        .map((g) => `${g.cause} x${g.count}`)
        .slice(0, 3)
        .join(', ')}`,
    );
  return `[gbatch] ${utcStamp(now)} ${parts.join(' | ')}`;
}

/** The run's own message as a plain line: timestamped like the progress lines. */
export function plainLogLine(message: string, now: number): string {
  return `[gbatch] ${utcStamp(now)} ${message}`;
}

/** 2026-11-24T00:11:05Z */
function utcStamp(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}
