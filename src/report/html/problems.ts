// Pure: the rows that need an operator (failed, rejected, uncertain, deferred, invalid) grouped by cause
// (what happened, the status and code: never a message's amounts or ids), each group with examples in
// their own words and the command that acts on it, pasteable as printed.
import { jobCommand, runCommandOf, type JobAddress } from '../../core/job-address.js';
import { ABANDONED_BOOKED, ABANDONED_NOT_BILLED } from '../../core/abandon.js';
import type { ItemState } from '../../core/states.js';
import { errorCause } from '../../core/error-groups.js';
import type { ReportItem } from '../model.js';

export const PROBLEM_STATES: readonly ItemState[] = ['uncertain', 'failed', 'rejected', 'deferred', 'invalid'];
const EXAMPLES = 5;
/** Ids named in a group's command when it has at most this many rows; more take the bulk flag. */
const NAMED_IDS = 10;
const MAX_GROUPS = 40;
/** Characters of an invalid row's text shown with its example. */
const ROW_TEXT = 500;

export interface ProblemGroup {
  state: ItemState;
  cause: string;
  count: number;
  ids: string[];
  /** The first rows as they are: id, error message, and (invalid rows) the row's text as written. */
  examples: ProblemExample[];
  /** A source position of the first row (invalid rows: where to fix them). */
  source: string;
  /** The commands that act on the group, each pasteable. */
  commands: string[];
  note: string;
  /** The error's type when its rows were abandoned while uncertain (their advice is not `retry`). */
  abandoned?: string;
  /** A video row is among them: only a video row has a task the operator may find and attach. */
  video?: boolean;
}

export interface ProblemExample {
  id: string;
  message: string;
  rowText?: string;
}

/**
 * What a row's problem is, the same for every row it befell: the state (a failed video task: `task
 * failed`), then the status and code, as the live view names it; an invalid row by its first field and
 * reason, ids, quoted values and numbers folded.
 */
export function causeOf(item: Pick<ReportItem, 'error' | 'state' | 'task_id'>): string {
  const e = item.error;
  if (!e) return item.state === 'deferred' ? 'deferred' : 'no error recorded';
  if (item.state === 'invalid') return invalidCause(e.message ?? '') ?? errorCause('invalid', e);
  return errorCause(item.state === 'failed' && item.task_id !== null ? 'task failed' : item.state, e);
}

/**
 * `rows.csv:9 row 'r9' field 'model': no price for model 'x' ...; ...` as `field 'model': no price for model '…' ...`.
 */
function invalidCause(message: string): string | undefined {
  const quoted = String.raw`(?:'[^']*'|"(?:[^"\\]|\\.)*")`;
  const match = new RegExp(String.raw`^.*?:\d+(?: row ${quoted})?(?: field (${quoted}))?: ([^;]*)`).exec(message);
  if (!match) return undefined;
  const reason = match[2]!.replace(new RegExp(quoted, 'g'), "'…'").replace(/\d+/g, '#').slice(0, 120).trim();
  return match[1] === undefined ? reason : `field ${match[1]}: ${reason}`;
}

export class ProblemGrouper {
  private readonly groups = new Map<string, ProblemGroup>();
  private overflow = 0;

  /** `frozen`: the standing's reason no command may change the job (a final serve batch), if it has one. */
  constructor(
    private readonly address: JobAddress,
    private readonly frozen: string | null = null,
  ) {}

  /** `rowText`: an invalid row's text as written (the journal keeps it in place of a request). */
  add(item: ReportItem, rowText?: string): void {
    if (!PROBLEM_STATES.includes(item.state)) return;
    const cause = causeOf(item);
    const key = `${item.state}\u0000${cause}`;
    let group = this.groups.get(key);
    if (!group) {
      if (this.groups.size >= MAX_GROUPS) {
        this.overflow++;
        return;
      }
      group = {
        state: item.state,
        cause,
        count: 0,
        ids: [],
        examples: [],
        source: item.source,
        commands: [],
        note: '',
      };
      const type = item.error?.type;
      if (type === ABANDONED_BOOKED || type === ABANDONED_NOT_BILLED) group.abandoned = type;
      this.groups.set(key, group);
    }
    group.count++;
    if (item.kind === 'video') group.video = true;
    if (group.ids.length < NAMED_IDS + 1) group.ids.push(item.id);
    if (group.examples.length < EXAMPLES) {
      const text =
        rowText === undefined ? undefined : rowText.length > ROW_TEXT ? `${rowText.slice(0, ROW_TEXT)}…` : rowText;
      group.examples.push({
        id: item.id,
        message: item.error?.message ?? '',
        ...(text !== undefined ? { rowText: text } : {}),
      });
    }
  }

  /** Groups in the order an operator acts: uncertain first (money may be at stake), then by size. */
  finish(): { groups: ProblemGroup[]; ungrouped: number } {
    const order = (s: ItemState) => PROBLEM_STATES.indexOf(s);
    const groups = [...this.groups.values()].sort((a, b) => order(a.state) - order(b.state) || b.count - a.count);
    for (const group of groups)
      Object.assign(group, this.frozen === null ? advice(group, this.address) : frozenAdvice(this.frozen), {
        ids: group.ids.slice(0, EXAMPLES),
      });
    return { groups, ungrouped: this.overflow };
  }
}

/** A job no command may change: what its client does instead, and no command. */
function frozenAdvice(frozen: string): Pick<ProblemGroup, 'commands' | 'note'> {
  return { note: `${frozen.charAt(0).toUpperCase()}${frozen.slice(1)}.`, commands: [] };
}

function advice(group: ProblemGroup, address: JobAddress): Pick<ProblemGroup, 'commands' | 'note'> {
  const named = group.count <= NAMED_IDS ? group.ids.map((id) => ({ id })) : undefined;
  const one = group.count === 1 ? { id: group.ids[0]! } : '<id>';
  // What runs the job again: its job file or its one manifest, as its runs were started; none for a serve batch.
  const run = (...flags: string[]) => {
    const command = runCommandOf(address, ...flags);
    return command === null ? [] : [command];
  };
  switch (group.state) {
    case 'uncertain': {
      return {
        note: "The request may have reached the gateway (and may be billed). Find each in the gateway's dashboard, then decide.",
        commands: [
          ...(group.video ? [jobCommand(address, 'resolve', one, '--task-id', '<T>')] : []),
          jobCommand(address, 'resolve', one, '--resubmit'),
          jobCommand(address, 'resolve', one, '--abandon'),
          ...(group.count > 1 ? [jobCommand(address, 'resolve', '--all-uncertain', '--resubmit')] : []),
        ],
      };
    }
    case 'failed':
      if (group.abandoned === ABANDONED_BOOKED) {
        return {
          note:
            "Abandoned by an operator while uncertain: the request may have been billed, so each row's bound stays booked against" +
            " the budget (counted as reserved). Once the gateway's dashboard shows a row was not billed, release its bound:",
          commands: [jobCommand(address, 'resolve', one, '--abandon', '--not-billed')],
        };
      }
      if (group.abandoned === ABANDONED_NOT_BILLED) {
        return {
          note: 'Abandoned by an operator while uncertain, and not billed (nothing is booked for it). Retry does not send a row whose request may have been kept.',
          commands: [],
        };
      }
      return {
        note: 'The task failed upstream (refunded), or an operator abandoned it. Send again:',
        commands: [jobCommand(address, 'retry', ...(named ?? ['--failed'])), ...run()],
      };
    case 'rejected':
      return {
        note: 'The gateway refused the request. Fix the cause, then send again:',
        commands: [jobCommand(address, 'retry', ...(named ?? ['--rejected'])), ...run()],
      };
    case 'deferred':
      return {
        note: "Held back by the budget or the gateway's balance: raise --budget or top up, then run again.",
        commands: run('--budget', '<USD>'),
      };
    default:
      return {
        note: `The manifest row is invalid (first at ${group.source}): fix it, then run again.`,
        commands: run(),
      };
  }
}
