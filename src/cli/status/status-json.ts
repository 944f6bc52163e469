// `gbatch status --json`: one object, a pure function of the status data.
import { orphanedJson } from '../orphaned-rows.js';
import { runnerJson, runnerViewJson } from '../runner-line.js';
import { healthJson } from '../status-check.js';
import type { StatusData } from './status-data.js';
import { standingJson } from '../../core/standing.js';
import { startForecastJson } from '../../report/start-forecast.js';

export function statusJson(s: StatusData): Record<string, unknown> {
  const found = new Map(s.uncertain.map((u) => [u.id, u]));
  // Each uncertain row with when it left and how its prompt starts, to find it in the gateway's dashboard.
  const located = s.attention.uncertain.map((item) => {
    const at = found.get(item.id)?.submittedAt;
    return {
      ...item,
      submitted_at: at === undefined ? null : new Date(at).toISOString(),
      prompt_start: found.get(item.id)?.promptStart ?? null,
    };
  });
  return {
    job: s.job,
    state: s.file,
    counts: s.counts,
    runner: runnerJson(s.holder),
    runners: s.runners.map(runnerViewJson),
    estimated_usd: s.totals.estimated_usd,
    actual_usd: s.totals.actual_usd,
    reserved_usd: s.totals.reserved_usd,
    budget_usd: s.budget,
    unmetered_items: s.totals.unmetered_items,
    forecast: s.forecast ? startForecastJson(s.forecast) : null,
    ...s.timing,
    attention: { ...s.attention, uncertain: located },
    orphaned: orphanedJson(s.orphans, s.orphansResent, s.named),
    last_run: s.lastRun,
    ...healthJson(s.health),
    standing: standingJson(s.standing),
  };
}
