// `gbatch resolve --all-uncertain --resubmit|--abandon`: the decision is always explicit, never a default.
import { commandNaming } from '../core/job-address.js';
import { quoteArg } from '../core/shell-text.js';
import { resolveEveryUncertain } from '../operate/resolve-uncertain.js';
import { commandJournalArg } from '../job/advice.js';
import { openCommandJournal } from './command-journal.js';
import { UsageError } from '../job/options.js';

const SHOWN_IDS = 20;

export async function resolveAll(
  options: {
    state?: string;
    journal?: string;
    'task-id'?: string;
    resubmit: boolean;
    abandon: boolean;
    'not-billed': boolean;
  },
  positionals: readonly string[],
): Promise<number> {
  if (options['task-id'] !== undefined) {
    throw new UsageError(
      '--all-uncertain cannot take --task-id: a task belongs to one item; attach it with `gbatch resolve <job> <item-id> --task-id T`',
    );
  }
  if (options.resubmit === options.abandon) {
    throw new UsageError(
      '--all-uncertain needs the decision: exactly one of --resubmit (send every uncertain item again) or --abandon (give them all up)',
    );
  }
  const {
    store: journal,
    ids,
    arg,
  } = await openCommandJournal(options, positionals, { readonly: false, withIds: true });
  const named = commandJournalArg(arg, journal.adapter === 'postgres');
  const file = journal.location;
  const decision = options.resubmit ? 'resubmit' : 'abandon';
  let resolved: string[];
  try {
    if (ids.length > 0)
      throw new UsageError(
        `--all-uncertain takes no item ids (got ${ids.map(quoteArg).join(' ')}); leave it out to decide one item`,
      );
    resolved = await resolveEveryUncertain(journal, decision, options['not-billed'], named);
  } finally {
    await journal.close();
  }
  if (resolved.length === 0) {
    process.stdout.write(`no uncertain items in ${file}; nothing changed\n`);
    return 0;
  }
  const shown = resolved.slice(0, SHOWN_IDS).map(quoteArg).join(', ');
  const more = resolved.length > SHOWN_IDS ? ` and ${resolved.length - SHOWN_IDS} more` : '';
  const outcome =
    decision === 'resubmit'
      ? options['not-billed']
        ? 'will be sent again by the next `gbatch run`; their first requests were not billed (the operator checked): their bounds are released'
        : 'will be sent again by the next `gbatch run` (where a first request reached the gateway, both may be billed: each bound stays booked against the budget)'
      : options['not-billed']
        ? 'abandoned (now failed) as not billed; their reservations are released'
        : 'abandoned (now failed); each may have been billed, so its bound stays booked against the budget' +
          ` (\`${commandNaming(named, 'resolve', '<item-id>', '--abandon', '--not-billed')}\` releases one the gateway did not bill)`;
  process.stdout.write(`${resolved.length} uncertain item(s) ${outcome}: ${shown}${more}\n`);
  return 0;
}
