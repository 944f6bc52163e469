// `gbatch forget`: removes from the journal rows that no manifest of the job lists any more and that were
// never sent (src/core/orphans.ts). A verb of its own, not a flag of `retry`: it is the opposite act.
import { quoteArg } from '../../core/shell-text.js';
import { itemIdsOf, openCommandJournal, JOB_JOURNAL_OPTIONS } from '../command-journal.js';
import { HELP_OPTION, UsageError, type OptionTable } from '../../job/options.js';
import { commandRunner, type CommandUsage } from '../command-args.js';

export const OPTIONS = {
  ...JOB_JOURNAL_OPTIONS,
  help: HELP_OPTION,
} as const satisfies OptionTable;

const USAGE: CommandUsage = {
  synopsis: '(<job> [--journal URL] | --state F) <item-id> ...',
  about:
    "\nRemoves orphaned items (in none of the manifests of the job's last run) that were never sent: pending,\n" +
    'deferred, invalid or cancelled, with no attempt. `gbatch status` lists the orphaned items.\n',
};

export const run = commandRunner('forget', OPTIONS, USAGE, async ({ options, positionals }) => {
  if (itemIdsOf(options, positionals).length === 0) {
    throw new UsageError('Expected item ids: which orphaned items to remove (see `gbatch forget --help`)');
  }
  const { store: journal, ids } = await openCommandJournal(options, positionals, { readonly: false, withIds: true });
  try {
    // A live runner's lanes read the journal's rows: holding its lock keeps one from starting meanwhile.
    await journal.membership.acquire();
    const outcome = await journal.forget(ids);
    if (!outcome.ok) throw new UsageError(`${outcome.refusal}; nothing was removed`);
    process.stdout.write(
      `removed ${outcome.forgotten.length} orphaned item(s) from the journal: ${outcome.forgotten.map(quoteArg).join(', ')}\n` +
        'a manifest that lists one of them again adds it back as a new row\n',
    );
    return 0;
  } finally {
    await journal.membership.release();
    await journal.close();
  }
});
