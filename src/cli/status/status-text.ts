// `gbatch status`'s text, and `status --check`'s: lines that are pure functions of the status data.
// Ids, task ids, errors and the job name come from outside: each line is made one printable line.
import { commandNaming } from '../../core/job-address.js';
import { runNowWords, type Need } from '../../core/standing.js';
import { EXIT_CODE } from '../../core/exit-codes.js';
import { printable } from '../../core/printable.js';
import { usd } from '../../report/table.js';
import { timingLine } from '../../report/timing-summary.js';
import { startForecastLine } from '../../report/start-forecast.js';
import { uncertainAdvice } from '../../job/advice.js';
import { lastRunLines } from '../last-run.js';
import { orphanedLines } from '../orphaned-rows.js';
import { runnerLine, runnersLines } from '../runner-line.js';
import { CHECK_FAILED, HEALTH_NEEDS } from '../status-check.js';
import { ATTENTION_STATES, type AttentionState, type StatusData } from './status-data.js';

/** `status --check`'s exit code: 1 when something needs an operator, else 0. */
export function checkExitCode(s: StatusData): number {
  return s.health.needsOperator.length > 0 ? CHECK_FAILED : EXIT_CODE.ok;
}

/**
 * `status --check` without --json: one line per thing that needs an operator, or one `ok` line; then each of the
 * standing's needs that is no health problem (HEALTH_NEEDS), so that it tells the story `status` tells.
 */
export function checkLines(s: StatusData): string[] {
  const lines =
    s.health.needsOperator.length > 0
      ? [...s.health.needsOperator]
      : [`ok: nothing needs an operator (${runNowWords(s.standing, s.health.wouldExit)})`];
  for (const need of s.standing.needs.filter((n) => !HEALTH_NEEDS.has(n.what)))
    lines.push(
      `waits for a person, not a health problem (nothing is stuck, billed twice or held back; it waits until someone decides): ${need.line}; \`${commandNaming(s.named, 'status')}\` lists them with their commands`,
    );
  return lines.map(printable);
}

export function statusLines(s: StatusData): string[] {
  const { counts, totals, budget, named, health } = s;
  const lines: string[] = [];
  lines.push(`Job ${s.job ?? '?'} (${s.file})`);
  lines.push(standingLine(s));
  if (s.runners.length > 1 || s.adapter === 'postgres') lines.push(...runnersLines(s.runners));
  else {
    const runner = runnerLine(s.holder);
    if (runner) lines.push(runner);
  }
  lines.push(
    Object.entries(counts)
      .filter(([, n]) => n > 0)
      .map(([state, n]) => `${state} ${n}`)
      .join(', ') || 'no items',
  );
  if (health.cancelled) {
    const again =
      s.standing.frozen ?? `\`${commandNaming(named, 'retry', '--cancelled')}\` sends the cancelled items again`;
    lines.push(
      `Cancelled ${health.cancelled.at}${health.cancelled.reason ? ` (${health.cancelled.reason})` : ''}: nothing more is sent; ${again}`,
    );
  }
  lines.push(
    `Spent ${usd(totals.actual_usd)}, reserved ${usd(totals.reserved_usd)}${budget !== null ? `, job budget ${usd(budget, 2)} (cumulative; headroom ${usd(budget - totals.actual_usd - totals.reserved_usd)})` : ', no budget'}; estimated in all ${usd(totals.estimated_usd)}`,
  );
  if (s.forecast) lines.push(startForecastLine(s.forecast));
  if (s.timing.started_at) lines.push(timingLine(s.timing));
  if (totals.unmetered_items > 0) {
    lines.push(
      `Unmetered: ${totals.unmetered_items} item(s) came back without a usable count from the gateway; each is booked at the most it could be billed`,
    );
  }
  const hints = attentionHints(s);
  for (const state of ATTENTION_STATES) {
    const items = s.attention[state];
    if (items.length === 0) continue;
    if (state === 'uncertain' && s.standing.frozen === null) {
      lines.push('', ...uncertainAdvice(s.uncertain, counts.uncertain, named));
      continue;
    }
    lines.push('', `${state} (${counts[state]}): ${hints[state]}`);
    for (const item of items)
      lines.push(`  ${item.id}${item.task_id ? ` task ${item.task_id}` : ''}${item.error ? `: ${item.error}` : ''}`);
    if (counts[state] > items.length)
      lines.push(`  ... ${counts[state] - items.length} more: ${commandNaming(named, 'report', '--format', 'csv')}`);
  }
  lines.push(...orphanedLines(s.orphans, s.orphansResent, named));
  lines.push(...lastRunLines(s.lastRun));
  return lines.map(printable);
}

/**
 * What each state that needs a look means, with the standing's need for it (its line and commands): a final batch's
 * needs carry no command, and say what its client does instead.
 */
function attentionHints(s: StatusData): Record<AttentionState, string> {
  const { frozen } = s.standing;
  const need = (what: Need['what']) => s.standing.needs.find((n) => n.what === what);
  const then = (what: Need['what'], does: string) => {
    const command = need(what)?.commands[0];
    return command === undefined ? '' : `; \`${command}\` ${does}`;
  };
  /** The need's own line with its commands, else what the rows are (a cancelled job's deferred rows need none). */
  const told = (what: Need['what'], otherwise: string) => {
    const found = need(what);
    return found === undefined ? otherwise : [found.line, ...found.commands.map((c) => `\`${c}\``)].join('; ');
  };
  const deferred = told('deferred', 'held back by the budget or the balance');
  const invalid = told('invalid', 'the manifest row is invalid (never sent)');
  if (frozen !== null)
    return {
      uncertain: `the request may have reached the gateway (and may be billed); ${frozen}`,
      deferred,
      failed: `the task failed (refunded) or was abandoned; ${frozen}`,
      rejected: `the gateway refused the request; ${frozen}`,
      invalid,
    };
  return {
    uncertain: '',
    deferred,
    failed: `the task failed (refunded) or was abandoned; the next run sends a refunded video failure again on its own (--retry-failed), unless it is orphaned (below)${then('failed', 'has the next run send every one again')}`,
    rejected: `the gateway refused the request${then('rejected', 'sends them again')}`,
    invalid,
  };
}

/** What happened, in the standing's sentence, with the command that carries the job on when one is due. */
function standingLine(s: StatusData): string {
  return s.standing.resume ? `${s.standing.sentence} Carry on: ${s.standing.resume}` : s.standing.sentence;
}
