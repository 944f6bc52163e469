// The budget belongs to the job: stored in its journal by the first run that sets it, kept by every
// later run, replaced or lifted by an explicit flag, or by an edit of the job file's value. Pure.
import { formatUsd, roundUsd } from './money.js';

/** What a job file says of the budget: a value, `"no-budget": true` ('none'), or nothing ('unset'). */
export type JobFileBudget = number | 'none' | 'unset';

export interface BudgetChoice {
  /** What the job's journal holds (undefined: no budget, or a new journal). */
  stored: number | undefined;
  /** `--budget` of this run, given explicitly (the command line, or runJob's options); never the job file's. */
  given: number | undefined;
  /** `--no-budget` of this run, given explicitly. */
  lift: boolean;
  /** The journal holds no record of the job yet: this run creates it. */
  created?: boolean;
  /** What the job file says now (default 'unset': no job file, or one without a budget). */
  file?: JobFileBudget;
  /** What it said when a run last recorded it; undefined: never recorded (a journal older than the record). */
  fileSeen?: JobFileBudget;
}

export interface BudgetInForce {
  budgetUsd: number | undefined;
  /** One line for the operator saying which budget is in force, or undefined when there is none to say. */
  note: string | undefined;
  /** What to record as the job file's budget, so that a later run sees whether the file changed. */
  fileBudget: JobFileBudget;
}

/**
 * Which budget is in force. The journal's budget is the job's; an explicit --budget / --no-budget always
 * wins. A job file's value applies when the job is created, and later only when it differs from what the
 * file said at the previous run (the file was edited): never over a later flag just because it is there.
 */
export function budgetInForce(choice: BudgetChoice): BudgetInForce {
  const file = choice.file ?? 'unset';
  const said = (budgetUsd: number | undefined, note: string | undefined): BudgetInForce => ({
    budgetUsd,
    note,
    fileBudget: file,
  });
  const { stored, given, lift } = choice;
  const overruled =
    typeof file === 'number' && file !== given
      ? `; the job file's budget ${usd(file)} is not applied: an explicit flag wins`
      : '';
  if (lift) {
    return said(
      undefined,
      stored === undefined
        ? undefined
        : `budget lifted (--no-budget): was ${usd(stored)}; this job now has no budget${overruled}`,
    );
  }
  if (given !== undefined) {
    if (stored === undefined)
      return said(
        given,
        `budget ${usd(given)} in force; it is cumulative for this journal and kept by later runs${overruled}`,
      );
    if (stored === given) return said(given, `budget ${usd(given)} in force (cumulative for this journal)${overruled}`);
    return said(given, `budget changed: ${usd(stored)} -> ${usd(given)} (cumulative for this journal)${overruled}`);
  }
  // A journal that never recorded the file (older than the record) takes its value only where it had no budget.
  const fileChanged =
    choice.fileSeen === undefined
      ? stored === undefined && typeof file === 'number'
      : file !== choice.fileSeen && file !== 'unset';
  if (choice.created || fileChanged) {
    if (file === 'none')
      return said(
        undefined,
        stored === undefined
          ? undefined
          : `budget lifted by the job file ("no-budget"): was ${usd(stored)}; this job now has no budget`,
      );
    if (typeof file === 'number') {
      if (choice.created || stored === undefined)
        return said(
          file,
          `budget ${usd(file)} in force, from the job file; it is cumulative for this journal and kept by later runs`,
        );
      return said(file, `budget changed in the job file: ${usd(stored)} -> ${usd(file)} (cumulative for this journal)`);
    }
  }
  if (stored !== undefined) {
    const fileAside =
      typeof file === 'number' && file !== stored
        ? `; the job file's budget ${usd(file)} is unchanged since it last applied, so it does not replace it`
        : '';
    return said(
      stored,
      `budget ${usd(stored)} in force, kept from earlier runs of this journal (cumulative; --budget X replaces it, --no-budget lifts it)${fileAside}`,
    );
  }
  return said(undefined, undefined);
}

/** The job file's budget as the journal stores it (text): 'none', 'unset', or the number. */
export function fileBudgetText(value: JobFileBudget): string {
  return typeof value === 'number' ? String(value) : value;
}

/** The stored text read back; undefined for none stored, or a text this gbatch does not know. */
export function fileBudgetOf(text: string | null | undefined): JobFileBudget | undefined {
  if (text === 'none' || text === 'unset') return text;
  if (typeof text !== 'string' || text.trim() === '') return undefined;
  const value = Number(text);
  return Number.isFinite(value) ? value : undefined;
}

/** Why a row was held back: what it needs and what is really left, at the moment it did not fit. */
export function deferralReason(
  budgetUsd: number,
  spend: { actualUsd: number; reservedUsd: number },
  needUsd: number,
): string {
  const remaining = roundUsd(Math.max(0, budgetUsd - spend.actualUsd - spend.reservedUsd));
  return (
    `needs up to ${usd(needUsd)} but ${usd(remaining)} of the ${usd(budgetUsd)} budget remains ` +
    `(settled ${usd(spend.actualUsd)}, reserved ${usd(spend.reservedUsd)})`
  );
}

/** Another run of the job changed its budget while this one works: from now on, reservations are held to it. */
export function budgetChangedLine(was: number | undefined, now: number | undefined): string {
  const said = (budget: number | undefined) => (budget === undefined ? 'no budget' : usd(budget));
  return `the job's budget was changed by another run of the job: ${said(was)} -> ${said(now)}; this run holds to it from now on`;
}

function usd(x: number): string {
  return formatUsd(x);
}
