import { createGatewayClient } from '../../gateway/client.js';
import { GatewayHttpError } from '../../gateway/errors.js';
import { applyDecision } from '../guarded-apply.js';
import { gatewayAccess } from '../job.js';
import { openCommandJournal } from '../command-journal.js';
import type { JournalStore } from '../../journal/index.js';
import { resolveAll } from '../resolve-all.js';
import { EXIT_CODES } from '../exit-codes.js';
import { helpText, parseOptions, UsageError, type OptionTable } from '../options.js';

export const OPTIONS = {
  state: { type: 'string', help: 'the SQLite journal (default: the journal of <job>, state/<job>.db)' },
  journal: { type: 'string', help: 'the journal on a database: a postgres:// URL (default: GBATCH_JOURNAL_URL); a path means an SQLite file, as --state' },
  'task-id': { type: 'string', help: 'attach the task the operator found: the next run polls and downloads it' },
  resubmit: { type: 'boolean', help: 'send the item again on purpose (a duplicate may be billed)' },
  abandon: { type: 'boolean', help: 'give the item up: it becomes failed and its reservation is released' },
  'all-uncertain': { type: 'boolean', help: 'apply --resubmit or --abandon (one of them, explicitly) to every uncertain item' },
  'no-verify': { type: 'boolean', help: 'with --task-id: do not look the task up on the gateway first' },
  'base-url': { type: 'string', help: 'gateway base URL for verifying --task-id (default: $GATEWAY_BASE_URL)' },
  help: { type: 'boolean', short: 'h', help: 'show this help' },
} as const satisfies OptionTable;

export async function run(argv: string[]): Promise<number> {
  const { options, positionals } = parseOptions(OPTIONS, argv);
  if (options.help) {
    process.stdout.write(`${helpText('resolve', '(<job> [--journal URL] | --state F) (<item-id> (--task-id T | --resubmit | --abandon) | --all-uncertain (--resubmit | --abandon))', OPTIONS, EXIT_CODES.resolve)}\n`);
    return 0;
  }
  if (options['all-uncertain']) return resolveAll(options, positionals);
  const decisions = [options['task-id'] !== undefined, options.resubmit, options.abandon].filter(Boolean).length;
  const { store, ids } = await openCommandJournal(options, positionals, { readonly: false, withIds: true });
  try {
    if (ids.length !== 1) throw new UsageError(`Expected one item id, got ${ids.length}`);
    if (decisions !== 1) throw new UsageError('Expected exactly one of --task-id T, --resubmit, --abandon');
    return await decide(store, ids[0]!, options);
  } finally {
    await store.close();
  }
}

async function decide(journal: JournalStore, id: string, options: { 'task-id'?: string; resubmit: boolean; abandon: boolean; 'no-verify': boolean; 'base-url'?: string }): Promise<number> {
  {
    const item = await journal.get(id);
    if (!item) throw new UsageError(`${journal.location}: no item '${id}'`);
    const taskId = options['task-id'];
    if (taskId !== undefined) {
      if (item.state !== 'uncertain') throw new UsageError(`item '${id}' is ${item.state}, not uncertain: --task-id applies to uncertain items only`);
      if (item.kind !== 'video') throw new UsageError(`item '${id}' is a ${item.kind} row: it has no task id; use --resubmit or --abandon`);
      if (!/^[\w.:-]{1,200}$/.test(taskId)) throw new UsageError(`Expected \`--task-id\` to be a task id such as task_abc123, got \`${taskId}\``);
      if (!options['no-verify']) await verifyTask(taskId, options['base-url']);
      await applyDecision(journal, item, { event: 'attach', patch: { taskId, lastError: null }, detail: { by: 'operator', taskId } });
      process.stdout.write(`item '${id}': attached task ${taskId}; the next \`gbatch run\` polls and downloads it\n`);
    } else if (options.resubmit) {
      if (item.state !== 'uncertain') throw new UsageError(`item '${id}' is ${item.state}, not uncertain: only uncertain items are resubmitted`);
      await applyDecision(journal, item, { event: 'resubmit', patch: { reservedUsd: 0, lastError: null }, detail: { by: 'operator' } });
      process.stdout.write(`item '${id}': will be sent again by the next \`gbatch run\` (if the first request reached the gateway, both may be billed)\n`);
    } else {
      if (!['uncertain', 'deferred', 'pending'].includes(item.state)) {
        throw new UsageError(`item '${id}' is ${item.state}: only uncertain, deferred or pending items can be abandoned`);
      }
      await applyDecision(journal, item, { event: 'abandon', patch: { reservedUsd: 0, lastError: { message: `abandoned by the operator (was ${item.state})` } }, detail: { by: 'operator' } });
      process.stdout.write(`item '${id}': abandoned (now failed); its reservation is released\n`);
    }
    return 0;
  }
}

async function verifyTask(taskId: string, baseUrl: string | undefined): Promise<void> {
  const access = gatewayAccess({ 'base-url': baseUrl }, process.env);
  const gateway = createGatewayClient({ ...access, backoff: { baseMs: 200, maxMs: 2000, maxAttempts: 3 } });
  try {
    await gateway.getTask(taskId);
  } catch (err) {
    if (err instanceof GatewayHttpError && err.status === 404) {
      throw new UsageError(`task ${taskId} is unknown to the gateway for this key (404); check the id, or pass --no-verify`);
    }
    throw new UsageError(`could not verify task ${taskId}: ${(err as Error).message}; pass --no-verify to attach it anyway`);
  }
}
