import { printable } from '../../core/printable.js';
import { Journal } from '../../journal/index.js';
import { reportHeader } from '../../report/model.js';
import { usd } from '../../report/table.js';
import { journalArg, uncertainAdvice } from '../advice.js';
import { lastRunLines, lastRunView } from '../last-run.js';
import { locateJournal } from '../locate-journal.js';
import { EXIT_CODES } from '../exit-codes.js';
import { runnerJson, runnerLine } from '../runner-line.js';
import { helpText, parseOptions, type OptionTable } from '../options.js';
import { uncertainRows } from '../uncertain-rows.js';

export const OPTIONS = {
  state: { type: 'string', help: 'the SQLite journal (default: state/<job>.db, or the only journal in state/)' },
  json: { type: 'boolean', help: 'print one JSON object' },
  help: { type: 'boolean', short: 'h', help: 'show this help' },
} as const satisfies OptionTable;

const ATTENTION_LIMIT = 20;

export async function run(argv: string[]): Promise<number> {
  const { options, positionals } = parseOptions(OPTIONS, argv);
  if (options.help) {
    process.stdout.write(`${helpText('status', '[job] [--state F] [--json]', OPTIONS, EXIT_CODES.status)}\n`);
    return 0;
  }
  const file = locateJournal(options.state, positionals[0]);
  const json = options.json;
  const journal = Journal.open(file, { readonly: true });
  try {
    const job = journal.getJob();
    const budget = job?.budgetUsd ?? null;
    const { totals } = reportHeader(journal, job?.name ?? file, budget);
    const attention = (state: 'uncertain' | 'deferred' | 'failed' | 'rejected' | 'invalid') =>
      journal.list([state], ATTENTION_LIMIT).map((i) => ({ id: i.id, kind: i.kind, task_id: i.taskId, error: i.lastError?.message ?? null }));
    const needs = {
      uncertain: attention('uncertain'), deferred: attention('deferred'), failed: attention('failed'),
      rejected: attention('rejected'), invalid: attention('invalid'),
    };
    const holder = journal.lock.holderLiveness();
    const counts = journal.counts();
    const uncertain = counts.uncertain > 0 ? uncertainRows(journal, ATTENTION_LIMIT) : [];
    const named = journalArg(file, job?.name);
    const lastRun = lastRunView(journal, holder);
    if (json) {
      const found = new Map(uncertain.map((u) => [u.id, u]));
      const located = needs.uncertain.map((item) => {
        const at = found.get(item.id)?.submittedAt;
        return { ...item, submitted_at: at === undefined ? null : new Date(at).toISOString(), prompt_start: found.get(item.id)?.promptStart ?? null };
      });
      process.stdout.write(`${JSON.stringify({
        job: job?.name ?? null, state: file, counts, runner: runnerJson(holder),
        estimated_usd: totals.estimated_usd, actual_usd: totals.actual_usd, reserved_usd: totals.reserved_usd, budget_usd: budget,
        unmetered_items: totals.unmetered_items,
        attention: { ...needs, uncertain: located }, last_run: lastRun,
      })}\n`);
      return 0;
    }
    const lines: string[] = [];
    lines.push(`Job ${job?.name ?? '?'} (${file})`);
    const runner = runnerLine(holder);
    if (runner) lines.push(runner);
    lines.push(Object.entries(counts).filter(([, n]) => n > 0).map(([s, n]) => `${s} ${n}`).join(', ') || 'no items');
    lines.push(`Spent ${usd(totals.actual_usd)}, reserved ${usd(totals.reserved_usd)}${budget !== null ? `, job budget ${usd(budget, 2)} (cumulative; headroom ${usd(budget - totals.actual_usd - totals.reserved_usd)})` : ', no budget'}; estimated in all ${usd(totals.estimated_usd)}`);
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
    lines.push(...lastRunLines(lastRun));
    // Ids, task ids, errors and the job name come from outside: each line printed as one printable line.
    process.stdout.write(`${lines.map(printable).join('\n')}\n`);
    return 0;
  } finally {
    journal.close();
  }
}
