// `gbatch retry`: the operator's explicit choice to send failed or rejected rows again, as new attempts.
import type { RequeuePlan } from '../../core/requeue.js';
import { quoteArg } from '../../core/shell-text.js';
import { retryRows } from '../../operate/retry-rows.js';
import { commandJournalArg } from '../../job/advice.js';
import { itemIdsOf, openCommandJournal, JOB_JOURNAL_OPTIONS } from '../command-journal.js';
import { HELP_OPTION, UsageError, type OptionTable } from '../../job/options.js';
import { commandRunner, type CommandUsage } from '../command-args.js';

export const OPTIONS = {
  ...JOB_JOURNAL_OPTIONS,
  failed: {
    type: 'boolean',
    help: 'every failed item (its task failed upstream, or it was abandoned before it was sent); not those abandoned while uncertain',
  },
  rejected: { type: 'boolean', help: 'every item the gateway refused (4xx)' },
  cancelled: {
    type: 'boolean',
    help: "every item `gbatch cancel` cancelled; lifts the job's cancellation, so runs send again",
  },
  help: HELP_OPTION,
} as const satisfies OptionTable;

const SHOWN_IDS = 20;

const USAGE: CommandUsage = {
  synopsis: '(<job> [--journal URL] | --state F) [--failed] [--rejected] [--cancelled] [item-id ...]',
  about:
    '\nFailed and rejected items become pending again; the next `gbatch run` sends each as a new attempt.\n' +
    'Uncertain items are decided with `gbatch resolve`, invalid ones by fixing the manifest.\n',
};

export const run = commandRunner('retry', OPTIONS, USAGE, async ({ options, positionals }) => {
  if (!options.failed && !options.rejected && !options.cancelled && itemIdsOf(options, positionals).length === 0) {
    throw new UsageError(
      'Expected --failed, --rejected, --cancelled or item ids: which items to send again (see `gbatch retry --help`)',
    );
  }
  const {
    store: journal,
    ids,
    arg,
  } = await openCommandJournal(options, positionals, {
    readonly: false,
    withIds: true,
    needsJob: { command: 'retry' },
  });
  try {
    // A live runner's lanes could not see these rows come back; holding its lock keeps one from starting meanwhile.
    await journal.membership.acquire();
    const context = { journalArg: commandJournalArg(arg, journal.adapter === 'postgres'), file: journal.location };
    const request = { failed: options.failed, rejected: options.rejected, cancelled: options.cancelled, ids };
    const { plan, adopted, lifted } = await retryRows(journal, request, context);
    process.stdout.write(
      `journal ${journal.location}${arg.jobName ? ` (job ${arg.jobName})` : ''}\n${summary(plan, adopted)}`,
    );
    if (lifted)
      process.stdout.write(
        `the job's cancellation (${new Date(lifted.at).toISOString()}) is lifted: runs send its items again\n`,
      );
    return 0;
  } finally {
    await journal.membership.release();
    await journal.close();
  }
});

function listed(ids: readonly string[]): string {
  const shown = ids.slice(0, SHOWN_IDS).map(quoteArg).join(', ');
  return ids.length > SHOWN_IDS ? `${shown} and ${ids.length - SHOWN_IDS} more` : shown;
}

function summary(plan: Extract<RequeuePlan, { ok: true }>, adopted: readonly string[]): string {
  const lines: string[] = [];
  if (plan.requeue.length === 0 && adopted.length === 0)
    lines.push('nothing to retry: no failed, rejected or cancelled items matched; nothing changed');
  else {
    lines.push(`requeued ${plan.requeue.length} item(s): ${listed(plan.requeue)}`);
    lines.push('the next `gbatch run` of this job sends them, each as a new attempt');
  }
  if (adopted.length > 0) {
    lines.push(
      `${adopted.length} of them orphaned (in none of the job's manifests, or changed in one and skipped): sent all the same, as asked,` +
        ` one changed in its manifest with the manifest's new content: ${listed(adopted)}`,
    );
    if (plan.requeue.length === 0) lines.push('the next `gbatch run` of this job sends them');
  }
  if (plan.leftOut.length > 0) {
    lines.push(
      `left out ${plan.leftOut.length} failed item(s) abandoned while uncertain (their request may have reached the gateway;` +
        ` retry never resends them): ${listed(plan.leftOut)}`,
    );
  }
  return `${lines.join('\n')}\n`;
}
