// `gbatch cancel`: the operator stops a job for good. Pending and deferred rows become cancelled (never
// sent); the job's cancellation makes every live runner stop submitting (it acknowledges it, and this
// command waits for that), and makes the journal refuse any later intent. Tasks already submitted are
// still polled, downloaded and settled: the gateway has no cancel, so they are billed.
import { commandNaming, journalArgOf, runCommandOf } from '../../core/job-address.js';
import { cancelJob } from '../../operate/cancel-job.js';
import {
  JournalWriteBusyError,
  type JobCancel,
  type JournalOperator,
  type JournalRun,
  type RunnerView,
} from '../../journal/index.js';
import { systemClock } from '../../core/clock.js';
import { commandAddress, openCommandJournal, type CommandJournal, JOB_JOURNAL_OPTIONS } from '../command-journal.js';
import { HELP_OPTION, UsageError, type OptionTable } from '../../job/options.js';
import { commandRunner, type CommandUsage } from '../command-args.js';
import { EXIT_CODE } from '../../core/exit-codes.js';

export const OPTIONS = {
  ...JOB_JOURNAL_OPTIONS,
  reason: { type: 'string', help: 'why, kept with the job and each cancelled item (results.jsonl shows it)' },
  wait: {
    type: 'number',
    default: 30,
    min: 0,
    help: 'seconds to wait for each live runner to acknowledge (it sends nothing more from then on)',
  },
  json: { type: 'boolean', help: 'one JSON object on stdout instead of the lines' },
  help: HELP_OPTION,
} as const satisfies OptionTable;

const ACK_POLL_MS = 50;
const MAX_REASON = 500;

const USAGE: CommandUsage = {
  synopsis: '(<job> [--journal URL] | --state F) [--reason TEXT] [--wait S] [--json]',
  about:
    '\nStops a job for good: nothing more is sent, by a live runner or a later `gbatch run`. Pending and deferred items\n' +
    'become cancelled. Tasks already submitted are still polled, downloaded and settled: the gateway has no cancel, so\n' +
    'they are billed. `gbatch retry <job> --cancelled` lifts the cancellation and sends the cancelled items again.\n',
};

export const run = commandRunner('cancel', OPTIONS, USAGE, async ({ options, positionals }) => {
  if (positionals.length > 1)
    throw new UsageError(`Expected one job, got ${positionals.length}: ${positionals.join(' ')}`);
  const reason = (options.reason ?? '')
    .replace(/[\u0000-\u001f\u007f]+/g, ' ')
    .trim()
    .slice(0, MAX_REASON);
  const opened = await openCommandJournal(options, positionals, {
    readonly: false,
    withIds: false,
    needsJob: { command: 'cancel' },
  });
  const journal = opened.store;
  try {
    return await cancelAndWait(journal, opened, reason, options.wait, options.json === true);
  } catch (err) {
    // A runner stopped (or stuck) in mid-write holds an SQLite journal past the busy timeout: try again later.
    if (!(err instanceof JournalWriteBusyError)) throw err;
    process.stderr.write(`gbatch cancel: ${err.message}: run \`gbatch cancel\` again\n`);
    return EXIT_CODE[err.exit];
  } finally {
    await journal.close();
  }
});

async function cancelAndWait(
  journal: JournalRun & JournalOperator,
  opened: CommandJournal,
  reason: string,
  waitS: number,
  json: boolean,
): Promise<number> {
  const { cancel, cancelled } = await cancelJob(journal, reason);
  const counts = await journal.counts();
  const inFlight = counts.submitting + counts.submitted + counts.running;
  const { arg } = opened;
  const address = await commandAddress(opened);
  const named = journalArgOf(address);
  const waited = await waitForRunners(journal, cancel, waitS * 1000);
  const exitCode = waited.late.length > 0 ? EXIT_CODE.inFlight : EXIT_CODE.ok;
  if (json) {
    const runner = (r: RunnerView) => ({ pid: r.pid, host: r.host });
    process.stdout.write(
      `${JSON.stringify({
        exit_code: exitCode,
        journal: journal.location,
        cancelled_at: new Date(cancel.at).toISOString(),
        reason: cancel.reason,
        cancelled: cancelled,
        in_flight: inFlight,
        answered: counts.succeeded,
        runners: { acknowledged: waited.acknowledged.map(runner), late: waited.late.map(runner) },
        retry_command: commandNaming(named, 'retry', '--cancelled'),
      })}\n`,
    );
    return exitCode;
  }
  const lines = [
    `journal ${journal.location}${arg.jobName ? ` (job ${arg.jobName})` : ''}`,
    `job cancelled${cancel.reason ? ` (${cancel.reason})` : ''}: ${cancelled.pending} pending and ${cancelled.deferred} deferred item(s) are now cancelled; they are never sent`,
  ];
  if (inFlight + counts.succeeded > 0) {
    lines.push(
      `${inFlight} item(s) in flight and ${counts.succeeded} answered are still polled, downloaded and settled: the gateway has no cancel, so they will be billed`,
    );
  }
  for (const runner of waited.acknowledged)
    lines.push(`runner pid ${runner.pid} (${runner.host}) acknowledged: it sends nothing more`);
  for (const runner of waited.late) {
    lines.push(
      `runner pid ${runner.pid} (${runner.host}) has not acknowledged within ${waitS} s: the journal refuses its new submissions, but a request it had already recorded may still leave`,
    );
  }
  if (waited.acknowledged.length + waited.late.length === 0 && inFlight + counts.succeeded > 0) {
    const run = runCommandOf(address);
    lines.push(
      `no runner is live: ${run ? `\`${run}\`` : 'the next run'} polls and downloads them (it sends nothing new)`,
    );
  }
  lines.push(`to send the cancelled items again: ${commandNaming(named, 'retry', '--cancelled')}`);
  process.stdout.write(`${lines.join('\n')}\n`);
  return exitCode;
}

/** Waits (bounded) until every live runner of the job acknowledged the cancellation or is gone. */
async function waitForRunners(
  journal: JournalRun & JournalOperator,
  cancel: JobCancel,
  boundMs: number,
): Promise<{ acknowledged: RunnerView[]; late: RunnerView[] }> {
  const clock = systemClock;
  const until = clock.now() + boundMs;
  const acknowledged = new Map<string, RunnerView>();
  for (;;) {
    const live = (await journal.membership.runners()).filter((r) => r.liveness.alive);
    for (const runner of live) if ((runner.cancelSeenAt ?? -1) >= cancel.at) acknowledged.set(runner.runnerId, runner);
    const late = live.filter((r) => !acknowledged.has(r.runnerId));
    if (late.length === 0 || clock.now() >= until) return { acknowledged: [...acknowledged.values()], late };
    await clock.sleep(Math.min(ACK_POLL_MS, Math.max(1, until - clock.now())));
  }
}
