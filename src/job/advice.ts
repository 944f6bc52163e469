// Pure: the advice printed for rows that wait for an operator, as commands that work when pasted.
import { normalize } from 'node:path';
import { printable } from '../core/printable.js';
import { quoteArg } from '../core/shell-text.js';
import type { ItemKind, ItemState } from '../core/states.js';
import { defaultJournalFor, jobNameFor } from './locate-journal.js';
import {
  commandNaming,
  journalArgOf,
  type CommandPart,
  type JobAddress,
  type JournalPlace,
} from '../core/job-address.js';
import { finalBatchOf } from '../core/final-batch.js';

/**
 * How a command names this journal: the job name when the journal is the job's default, else
 * `--state <file>`; on a database, the job and (unless GBATCH_JOURNAL_URL names it) `--journal <url>`,
 * the URL without its password: the operator adds it, or sets the variable.
 */
export function journalArg(file: string, jobName: string | undefined, server?: { fromEnv: boolean }): string {
  return journalArgOf(jobAddress({ file, name: jobName, server }));
}

/**
 * journalArg for a run, naming the job as the operator started it: the job file or manifest, which
 * every command takes for the job and which finds the run's journal by itself unless a flag (`moved`)
 * put the journal elsewhere.
 */
export function startedJobArg(
  source: string,
  file: string,
  server: { fromEnv: boolean } | undefined,
  moved: boolean,
): string {
  return journalArgOf(startedJobAddress(source, file, server, moved));
}

/** The address of a job a run started: named by its job file or manifest, which is also what runs it again. */
export function startedJobAddress(
  source: string,
  file: string,
  server: { fromEnv: boolean } | undefined,
  moved: boolean,
): JobAddress {
  const address = jobAddress({ file, name: jobNameFor(source), server, named: source, namedFindsJournal: !moved });
  return { ...address, source, sourceFindsJournal: address.namedFindsJournal === true || isDefault(file, source) };
}

/** journalArg for a journal a command opened. */
export function commandJournalArg(
  arg: { jobName: string | undefined; location: string; fromEnv: boolean; named?: string },
  onServer: boolean,
): string {
  if (arg.named !== undefined) return arg.named;
  return journalArg(arg.location, arg.jobName, onServer ? { fromEnv: arg.fromEnv } : undefined);
}

/**
 * A job's address from what is known of it: its journal (a file, or a database URL without its password), its
 * name, how the operator named it, and the source its runs recorded (the job file or manifest, in its options).
 */
export function jobAddress(facts: {
  file: string;
  name: string | undefined;
  server?: { fromEnv: boolean } | undefined;
  named?: string | undefined;
  namedFindsJournal?: boolean;
  options?: Record<string, unknown> | undefined;
}): JobAddress {
  const { file, name, server, named } = facts;
  const journal: JournalPlace = server
    ? { adapter: 'postgres', url: file, fromEnv: server.fromEnv }
    : { adapter: 'sqlite', file, isDefault: isDefault(file, named ?? name) };
  const recorded = typeof facts.options?.source === 'string' ? facts.options.source : undefined;
  // The source finds the journal as the name the operator gave does (a job file's own `journal`), or by default.
  const sourceFinds = (source: string) =>
    (named === source && facts.namedFindsJournal === true) || (server ? server.fromEnv : isDefault(file, source));
  const batch = finalBatchOf(facts.options)?.batch ?? (name !== undefined && isServeBatch(name) ? name : undefined);
  return {
    ...(named !== undefined ? { named, namedFindsJournal: facts.namedFindsJournal === true } : {}),
    ...(name !== undefined ? { name } : {}),
    journal,
    ...(recorded !== undefined ? { source: recorded, sourceFindsJournal: sourceFinds(recorded) } : {}),
    ...(batch !== undefined ? { batch } : {}),
  };
}

/** A `gbatch serve` batch's job is named by its batch id. */
function isServeBatch(name: string): boolean {
  return /^batch_[0-9a-f]{24}$/.test(name);
}

function isDefault(file: string, job: string | undefined): boolean {
  return job !== undefined && normalize(defaultJournalFor(job)) === normalize(file);
}

export interface UncertainRow {
  id: string;
  kind: ItemKind;
  /** When its last submission left (ms since the epoch), from the event log. */
  submittedAt: number | undefined;
  /** The start of its prompt, one printable line (see promptStart). */
  promptStart: string;
  error: string | null;
}

/**
 * What `status` and `run` print for uncertain rows: each (up to the rows given) with its submission
 * time and prompt start, to find it in the gateway's dashboard, then the decisions as commands.
 */
export function uncertainAdvice(rows: readonly UncertainRow[], total: number, journal: string): string[] {
  const lines = [
    `uncertain (${total}): the request may have reached the gateway (and may be billed). Find each in the gateway's dashboard` +
      ' by its submission time and prompt, then decide:',
  ];
  const width = Math.min(24, Math.max(...rows.map((r) => quoteArg(r.id).length), 0));
  for (const row of rows) {
    const when =
      row.submittedAt === undefined
        ? 'submitted at an unknown time'
        : `submitted ${new Date(row.submittedAt).toISOString()}`;
    const error = row.error ? `  (${printable(row.error)})` : '';
    lines.push(`  ${quoteArg(row.id).padEnd(width)}  ${row.kind.padEnd(9)}  ${when}  "${row.promptStart}"${error}`);
  }
  if (total > rows.length)
    lines.push(`  ... ${total - rows.length} more: ${commandNaming(journal, 'report', '--format', 'csv')}`);
  const id = rows.length === 1 && total === 1 ? { id: rows[0]!.id } : '<id>';
  const resolve = (...rest: CommandPart[]) => commandNaming(journal, 'resolve', ...rest);
  if (rows.some((r) => r.kind === 'video'))
    lines.push(`  found its task:  ${resolve(id, '--task-id', '<T>')}   (the next run polls and downloads it)`);
  lines.push(`  send it again:   ${resolve(id, '--resubmit')}   (if the first request was kept, both are billed)`);
  lines.push(`  give it up:      ${resolve(id, '--abandon')}`);
  if (total > 1) lines.push(`  all at once:     ${resolve('--all-uncertain', '--resubmit')}   (or --abandon)`);
  return lines;
}

/** For tasks the gateway accepted after the run lost its standing: the command that gives each row its task. */
export function unrecordedTaskAdvice(tasks: ReadonlyArray<{ id: string; taskId: string }>, journal: string): string[] {
  if (tasks.length === 0) return [];
  return [
    'each of those rows is uncertain once another runner takes it over; give it the task the gateway accepted (the next run polls and downloads it, nothing is sent again):',
    ...tasks.map((t) => `  ${unrecordedTaskCommand(t, journal)}`),
  ];
}

export function unrecordedTaskCommand(task: { id: string; taskId: string }, journal: string): string {
  return commandNaming(journal, 'resolve', { id: task.id }, '--task-id', { id: task.taskId });
}

/** For answers received after the run lost its standing: the command that settles each row from its recorded answer. */
export function unrecordedAnswerAdvice(answers: ReadonlyArray<{ id: string }>, journal: string): string[] {
  if (answers.length === 0) return [];
  return [
    "each of those answers is in the journal's event log; once another runner has made its row uncertain, settle the row from it (nothing is sent again; the next run writes it to results.jsonl):",
    ...answers.map((a) => `  ${recordedAnswerCommand(a, journal)}`),
  ];
}

export function recordedAnswerCommand(answer: { id: string }, journal: string): string {
  return commandNaming(journal, 'resolve', { id: answer.id }, '--recorded-answer');
}

/** A row no run sends on its own (orphaned: in none of the job's manifests, or changed in one and skipped). */
export interface WithheldRow {
  id: string;
  state: ItemState;
  /** `failed` because an operator abandoned it while `uncertain`: retry never sends it. */
  abandonedWhileUncertain: boolean;
}

/** States of a withheld row that `gbatch retry <id>` sends again (src/core/requeue.ts). */
const RESENDABLE: ReadonlySet<ItemState> = new Set(['pending', 'deferred', 'failed', 'rejected', 'cancelled']);

/** The withheld rows the next run sends once named to `gbatch retry` (a changed one with its manifest's content). */
export function resendable(rows: readonly WithheldRow[]): string[] {
  return rows.filter((r) => RESENDABLE.has(r.state) && !r.abandonedWhileUncertain).map((r) => r.id);
}

/** The one command that has the next run send these rows: `gbatch retry <job> <ids>`; null for none. */
export function resendCommand(ids: readonly string[], journal: string): string | null {
  return ids.length === 0 ? null : commandNaming(journal, 'retry', ...ids.map((id) => ({ id })));
}

/**
 * What `run` prints at its end for the rows it skipped as changed (--skip-changed): no run sends them on
 * its own, neither content; the command that has the next run send the manifest's new content, and the
 * rows sent already, whose new content goes as new work under a new id.
 */
export function changedRowAdvice(rows: readonly WithheldRow[], total: number, journal: string): string[] {
  if (total === 0) return [];
  const lines = [
    `${total} changed row(s) skipped (--skip-changed): no run sends them on its own, neither the journal's content nor the manifest's new one`,
  ];
  const send = resendable(rows);
  const command = resendCommand(send, journal);
  if (command)
    lines.push(
      `  to send the new content: ${command}   (the next run sends it in place of the old; the row's history is kept)`,
    );
  const sent = rows.filter((r) => !send.includes(r.id));
  if (sent.length > 0) {
    const states = [...new Set(sent.map((r) => r.state))].join(', ');
    lines.push(
      `  sent already (${states}): to send the new content, give its manifest row a new id: ${sent.map((r) => quoteArg(r.id)).join(', ')}`,
    );
  }
  if (total > rows.length)
    lines.push(`  ... ${total - rows.length} more: \`${commandNaming(journal, 'status')}\` lists the orphaned rows`);
  return lines;
}
