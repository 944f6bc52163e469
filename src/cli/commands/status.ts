import { printable } from '../../core/printable.js';
import { reportHeader } from '../../report/model.js';
import { timingSummary, timingLine } from '../../report/timing-summary.js';
import { usd } from '../../report/table.js';
import { commandJournalArg, uncertainAdvice } from '../../job/advice.js';
import { openCommandJournal } from '../command-journal.js';
import { lastRunLines, lastRunView } from '../last-run.js';
import { EXIT_CODES } from '../exit-codes.js';
import { runnerJson, runnerLine, runnersLines, runnerViewJson } from '../runner-line.js';
import { parseOptions, type OptionTable } from '../../job/options.js';
import { helpText } from '../help-text.js';
import { uncertainRows } from '../uncertain-rows.js';
import { CHECK_FAILED, gatherHealth, healthJson } from '../status-check.js';
import { countsForExit } from '../../core/orphans.js';
import { orphanedJson, orphanedLines } from '../orphaned-rows.js';

export const OPTIONS = {
  state: { type: 'string', help: 'the SQLite journal (default: state/<job>.db, or the only journal in state/)' },
  journal: { type: 'string', help: 'the journal on a database: a postgres:// URL (default: GBATCH_JOURNAL_URL); a path means an SQLite file, as --state' },
  json: { type: 'boolean', help: 'print one JSON object' },
  check: { type: 'boolean', help: 'for health checks: one line per thing that needs an operator, exit 1 if any (0: none); with --json, the usual object' },
  help: { type: 'boolean', short: 'h', help: 'show this help' },
} as const satisfies OptionTable;

const ATTENTION_LIMIT = 20;

export async function run(argv: string[]): Promise<number> {
  const { options, positionals } = parseOptions(OPTIONS, argv);
  if (options.help) {
    process.stdout.write(`${helpText('status', '[job] [--state F | --journal URL] [--json] [--check]', OPTIONS, EXIT_CODES.status)}\n`);
    return 0;
  }
  const opened = await openCommandJournal(options, positionals, { readonly: true, withIds: false });
  const journal = opened.store;
  const file = journal.location;
  const json = options.json;
  try {
    const job = await journal.getJob();
    const budget = job?.budgetUsd ?? null;
    const timing = await timingSummary(journal);
    const { totals } = await reportHeader(journal, job?.name ?? file, budget, timing.timeline);
    const attention = async (state: 'uncertain' | 'deferred' | 'failed' | 'rejected' | 'invalid') =>
      (await journal.list([state], ATTENTION_LIMIT)).map((i) => ({ id: i.id, kind: i.kind, task_id: i.taskId, error: i.lastError?.message ?? null }));
    const needs = {
      uncertain: await attention('uncertain'), deferred: await attention('deferred'), failed: await attention('failed'),
      rejected: await attention('rejected'), invalid: await attention('invalid'),
    };
    const runners = await journal.membership.runners();
    const holder = runners.find((r) => r.liveness.alive) ?? runners[0];
    const holderView = holder && { pid: holder.pid, host: holder.host, heartbeatAt: holder.heartbeatAt, ...holder.liveness };
    const counts = await journal.counts();
    const uncertain = counts.uncertain > 0 ? await uncertainRows(journal, ATTENTION_LIMIT) : [];
    const named = commandJournalArg(opened.arg, journal.adapter === 'postgres');
    const orphans = await journal.orphans(ATTENTION_LIMIT);
    // Orphaned rows that wait are no run's work: they neither defer nor fail what `run` would exit with.
    const exitCounts = countsForExit(counts, orphans.counts);
    const lastRun = await lastRunView(journal, holderView, Date.now(), exitCounts);
    const health = await gatherHealth(journal, runners, lastRun, exitCounts);
    const checked = options.check && health.needsOperator.length > 0 ? CHECK_FAILED : 0;
    if (options.check && !json) {
      const lines = checked ? health.needsOperator : [`ok: nothing needs an operator (\`gbatch run\` would exit ${health.wouldExit} now)`];
      process.stdout.write(`${lines.map(printable).join('\n')}\n`);
      return checked;
    }
    if (json) {
      const found = new Map(uncertain.map((u) => [u.id, u]));
      const located = needs.uncertain.map((item) => {
        const at = found.get(item.id)?.submittedAt;
        return { ...item, submitted_at: at === undefined ? null : new Date(at).toISOString(), prompt_start: found.get(item.id)?.promptStart ?? null };
      });
      process.stdout.write(`${JSON.stringify({
        job: job?.name ?? null, state: file, counts, runner: runnerJson(holderView), runners: runners.map(runnerViewJson),
        estimated_usd: totals.estimated_usd, actual_usd: totals.actual_usd, reserved_usd: totals.reserved_usd, budget_usd: budget,
        unmetered_items: totals.unmetered_items, ...timing.json,
        attention: { ...needs, uncertain: located }, orphaned: orphanedJson(orphans), last_run: lastRun, ...healthJson(health),
      })}\n`);
      return checked;
    }
    const lines: string[] = [];
    lines.push(`Job ${job?.name ?? '?'} (${file})`);
    if (runners.length > 1 || journal.adapter === 'postgres') lines.push(...runnersLines(runners));
    else {
      const runner = runnerLine(holderView);
      if (runner) lines.push(runner);
    }
    lines.push(Object.entries(counts).filter(([, n]) => n > 0).map(([s, n]) => `${s} ${n}`).join(', ') || 'no items');
    if (health.cancelled) {
      lines.push(`Cancelled ${health.cancelled.at}${health.cancelled.reason ? ` (${health.cancelled.reason})` : ''}: nothing more is sent; \`gbatch retry ${named} --cancelled\` sends the cancelled items again`);
    }
    lines.push(`Spent ${usd(totals.actual_usd)}, reserved ${usd(totals.reserved_usd)}${budget !== null ? `, job budget ${usd(budget, 2)} (cumulative; headroom ${usd(budget - totals.actual_usd - totals.reserved_usd)})` : ', no budget'}; estimated in all ${usd(totals.estimated_usd)}`);
    if (timing.json.started_at) lines.push(timingLine(timing.json));
    if (totals.unmetered_items > 0) {
      lines.push(`Unmetered: ${totals.unmetered_items} item(s) came back without a usable count from the gateway; each is booked at the most it could be billed`);
    }
    const hints: Record<Exclude<keyof typeof needs, 'uncertain'>, string> = {
      deferred: 'held back by the budget or the balance: raise --budget or top up, then run again',
      failed: `the task failed (refunded) or was abandoned; \`gbatch retry ${named} --failed\` sends them again`,
      rejected: `the gateway refused the request; \`gbatch retry ${named} --rejected\` sends them again`,
      invalid: 'the manifest row is invalid: fix it and run again',
    };
    for (const [state, items] of Object.entries(needs) as Array<[keyof typeof needs, typeof needs.uncertain]>) {
      if (items.length === 0) continue;
      if (state === 'uncertain') {
        lines.push('', ...uncertainAdvice(uncertain, counts.uncertain, named));
        continue;
      }
      lines.push('', `${state} (${counts[state]}): ${hints[state]}`);
      for (const item of items) lines.push(`  ${item.id}${item.task_id ? ` task ${item.task_id}` : ''}${item.error ? `: ${item.error}` : ''}`);
      if (counts[state] > items.length) lines.push(`  ... ${counts[state] - items.length} more (gbatch report --format csv)`);
    }
    lines.push(...orphanedLines(orphans, named));
    lines.push(...lastRunLines(lastRun));
    // Ids, task ids, errors and the job name come from outside: each line printed as one printable line.
    process.stdout.write(`${lines.map(printable).join('\n')}\n`);
    return 0;
  } finally {
    await journal.close();
  }
}
