// The operator's decision for an uncertain item, taken from the gateway's usage history (spec 4 rule 7):
// here the simulator's ledger plays that history.
import type { TaskRecord } from '../../../src/sim/index.js';
import type { CampaignRow } from './campaign.js';

export type Resolution =
  | { kind: 'attach'; taskId: string }
  /** `chargedCalls`: text calls of this row the gateway already charged whose answers were lost. */
  | { kind: 'resubmit'; chargedCalls: number };

export interface UsageHistory {
  tasks: readonly TaskRecord[];
  submissionsByPrompt: Readonly<Record<string, number>>;
}

/**
 * A video row whose task exists upstream gets that task attached (never a second task). A text row
 * has no id to attach: it is sent again, and any call the gateway already charged is a known duplicate.
 * A row the gateway never saw is simply sent again.
 */
export function decideResolution(row: CampaignRow, history: UsageHistory): Resolution {
  if (row.kind === 'video') {
    const task = history.tasks.find((t) => t.prompt === row.prompt);
    return task ? { kind: 'attach', taskId: task.id } : { kind: 'resubmit', chargedCalls: 0 };
  }
  return { kind: 'resubmit', chargedCalls: history.submissionsByPrompt[row.prompt] ?? 0 };
}

/** A row the gateway never charged is resent `--not-billed` (the history says so): its bound is released. */
export function resolveArgs(statePath: string, itemId: string, decision: Resolution): string[] {
  return decision.kind === 'attach'
    ? ['resolve', '--state', statePath, itemId, '--task-id', decision.taskId]
    : ['resolve', '--state', statePath, itemId, '--resubmit', ...(decision.chargedCalls === 0 ? ['--not-billed'] : [])];
}
