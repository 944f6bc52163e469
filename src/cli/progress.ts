// Progress on stderr: one line every few seconds, readable in a terminal and in a cron log alike.
import type { Progress } from '../pipeline/context.js';
import { usd } from '../report/table.js';

const ORDER = ['pending', 'submitting', 'submitted', 'running', 'succeeded', 'downloaded', 'deferred', 'uncertain', 'failed', 'rejected', 'invalid', 'cancelled'] as const;

export function progressLine(p: Progress, now: number): string {
  const total = Object.values(p.counts).reduce((a, b) => a + b, 0);
  const parts = ORDER.filter((s) => p.counts[s] > 0).map((s) => `${s} ${p.counts[s]}`);
  const spent = `spent ${usd(p.spend.actualUsd, 4)} + reserved ${usd(p.spend.reservedUsd, 4)}` +
    (p.budgetUsd !== undefined ? ` of ${usd(p.budgetUsd, 2)}` : '');
  const paused = p.pausedUntil > now ? ` | rate-limited, resuming in ${Math.ceil((p.pausedUntil - now) / 1000)}s` : '';
  return `[gbatch] ${p.counts.downloaded}/${total} done | ${parts.join(', ')} | ${spent}${paused}`;
}
