// The job's last run as the report and the dashboard tell it: its times, exit code and what the code means.
import { EXIT_CODES } from '../core/command-exit-codes.js';
import type { RunRecord } from '../journal/index.js';
import type { LastRunSummary } from './html/sections.js';

export function lastRunSummary(run: RunRecord | undefined): LastRunSummary | null {
  if (!run) return null;
  const meaning = run.exitCode == null ? null : (EXIT_CODES.run.find(([code]) => code === run.exitCode)?.[1] ?? null);
  return {
    startedAt: run.startedAt,
    endedAt: run.endedAt,
    exitCode: run.exitCode,
    stopReason: run.stopReason,
    message: run.message,
    meaning,
  };
}
