// `gbatch resolve`: the operator's decision on a row whose outcome the run could not know (or that waits).
import { commandJournalArg } from '../../job/advice.js';
import { openCommandJournal, JOB_JOURNAL_OPTIONS } from '../command-journal.js';
import { HELP_OPTION, UsageError, type OptionTable } from '../../job/options.js';
import { commandRunner, type CommandUsage } from '../command-args.js';
import { abandonItem } from '../../operate/abandon-item.js';
import { resolveAll } from '../resolve-all.js';
import { settleFromRecordedAnswer } from '../../operate/recorded-answer.js';
import { resubmitItem } from '../../operate/resubmit-item.js';
import { attachTask, detachTask } from '../resolve-task.js';

export const OPTIONS = {
  ...JOB_JOURNAL_OPTIONS,
  'task-id': { type: 'string', help: 'attach the task the operator found: the next run polls and downloads it' },
  force: {
    type: 'boolean',
    help: 'with --task-id: attach a task the journal already holds for another item or an earlier attempt',
  },
  'detach-task': { type: 'boolean', help: 'undo an attached task: the item is uncertain again, its bound booked' },
  'recorded-answer': {
    type: 'boolean',
    help: "settle an uncertain chat/responses item from the answer a runner received after losing its lease (in the journal's event log): nothing is sent",
  },
  resubmit: { type: 'boolean', help: 'send the item again on purpose (a duplicate may be billed)' },
  abandon: {
    type: 'boolean',
    help: "give the item up: it becomes failed; an uncertain item's bound stays booked against the budget (it may have been billed)",
  },
  'not-billed': {
    type: 'boolean',
    help: 'with --abandon or --resubmit: the gateway shows the request was not billed: release its reservation (also for an item already abandoned)',
  },
  'all-uncertain': {
    type: 'boolean',
    help: 'apply --resubmit or --abandon (one of them, explicitly) to every uncertain item',
  },
  'no-verify': { type: 'boolean', help: 'with --task-id: do not look the task up on the gateway first' },
  'base-url': { type: 'string', help: 'gateway base URL for verifying --task-id (default: $GATEWAY_BASE_URL)' },
  help: HELP_OPTION,
} as const satisfies OptionTable;

const SYNOPSIS =
  '(<job> [--journal URL] | --state F) (<item-id> (--task-id T [--force] | --detach-task | --recorded-answer | (--resubmit | --abandon) [--not-billed])' +
  ' | --all-uncertain (--resubmit | --abandon) [--not-billed])';

const USAGE: CommandUsage = { synopsis: SYNOPSIS };

export const run = commandRunner('resolve', OPTIONS, USAGE, async ({ options, positionals }) => {
  if (options['not-billed'] && !options.abandon && !options.resubmit)
    throw new UsageError(
      '--not-billed goes with --abandon or --resubmit: `gbatch resolve <job> <item-id> --abandon --not-billed`',
    );
  if (options.force && options['task-id'] === undefined)
    throw new UsageError('--force goes with --task-id: it attaches a task the journal already holds elsewhere');
  if (options['all-uncertain']) {
    if (options['detach-task'])
      throw new UsageError('--all-uncertain cannot take --detach-task: a task belongs to one item');
    return resolveAll(options, positionals);
  }
  const decisions = [
    options['task-id'] !== undefined,
    options['detach-task'],
    options['recorded-answer'],
    options.resubmit,
    options.abandon,
  ].filter(Boolean).length;
  const {
    store: journal,
    ids,
    arg,
  } = await openCommandJournal(options, positionals, { readonly: false, withIds: true });
  try {
    if (ids.length !== 1) throw new UsageError(`Expected one item id, got ${ids.length}`);
    if (decisions !== 1)
      throw new UsageError(
        'Expected exactly one of --task-id T, --detach-task, --recorded-answer, --resubmit, --abandon',
      );
    const id = ids[0]!;
    if (options.abandon) {
      process.stdout.write(
        `${await abandonItem(journal, id, options['not-billed'], commandJournalArg(arg, journal.adapter === 'postgres'))}\n`,
      );
      return 0;
    }
    const item = await journal.get(id);
    if (!item) throw new UsageError(`${journal.location}: no item '${id}'`);
    let said: string;
    if (options['task-id'] !== undefined) {
      said = await attachTask(journal, item, options['task-id'], {
        force: options.force,
        verify: !options['no-verify'],
        baseUrl: options['base-url'],
      });
    } else if (options['recorded-answer']) {
      said = await settleFromRecordedAnswer(journal, item);
    } else if (options['detach-task']) {
      // The row's answer may be in results.jsonl or held by a run's lanes: no run may be live meanwhile (SQLite).
      await journal.membership.acquire();
      try {
        said = await detachTask(journal, item);
      } finally {
        await journal.membership.release();
      }
    } else {
      said = await resubmitItem(
        journal,
        item,
        commandJournalArg(arg, journal.adapter === 'postgres'),
        undefined,
        options['not-billed'],
      );
    }
    process.stdout.write(`${said}\n`);
    return 0;
  } finally {
    await journal.close();
  }
});
