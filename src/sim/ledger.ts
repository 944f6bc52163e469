// The ledger: every request, task, reservation, settlement, refund and chat charge, per account.
// Accounts appear by name (acct-1, ...), never by key. Reads settle due tasks first, so a balance
// read never sees a task that has ended but not yet been settled.

import type { Resolution } from '../core/models.js';
import type { AccountRegistry } from './accounts.js';
import type { RateSnapshot } from './prices.js';

export interface RequestRecord {
  at: number;
  /** null when the request carried no valid key. */
  account: string | null;
  method: string;
  path: string;
  /** null when the socket was dropped without an answer. */
  status: number | null;
  /** The parsed JSON body of a POST (absent when there was none or it was not JSON). */
  body?: unknown;
  outcome: 'answered' | 'dropped';
}

export type TaskState = 'NOT_START' | 'QUEUED' | 'IN_PROGRESS' | 'SUCCESS' | 'FAILURE';

export interface TaskRecord {
  id: string;
  account: string;
  model: string;
  prompt: string;
  requestedResolution: Resolution;
  finalResolution: Resolution;
  seconds: number;
  hasReferenceVideo: boolean;
  referenceVideos: number;
  reservedUsd: number;
  /** USD per 1M tokens per resolution of the model, for this task's reference flag, frozen at submission. */
  rateSnapshot: RateSnapshot;
  groupRatioSnapshot: number;
  state: TaskState;
  /** Final total_tokens once SUCCESS, else null. */
  totalTokens: number | null;
  /** The reservation while running, the settled charge after (0 after FAILURE). */
  chargedUsd: number;
  submittedAt: number;
  endsAt: number;
}

export type ChargeKind = 'reserve' | 'settle' | 'refund' | 'chat';

/** `usd` is what left the balance: negative for a refund or a settlement below the reservation. */
export interface ChargeRecord {
  at: number;
  account: string;
  kind: ChargeKind;
  taskId?: string;
  usd: number;
}

export interface LedgerSources {
  accounts: AccountRegistry;
  /** Settles every task past its end time (called before any read). */
  settleDue(): void;
  taskRecords(): TaskRecord[];
  /** Told after each request or charge is recorded (the simulator's --state file is written after it). */
  changed?(): void;
}

/** What a restart needs of the ledger (--state): the logs as recorded; the balances are the accounts'. */
export interface SavedLedger {
  requests: RequestRecord[];
  charges: ChargeRecord[];
  submissionsByPrompt: Record<string, number>;
}

export class Ledger {
  private readonly requestLog: RequestRecord[] = [];
  private readonly chargeLog: ChargeRecord[] = [];
  private readonly acceptedByPrompt = new Map<string, number>();
  private readonly spentByAccount = new Map<string, number>();
  private sources: LedgerSources | undefined;
  private readonly watchers = new Set<() => void>();
  private notifyQueued = false;

  /** Wired once by the simulator (the ledger and the task book need each other). */
  attach(sources: LedgerSources): void {
    this.sources = sources;
  }

  get requests(): readonly RequestRecord[] {
    this.sources?.settleDue();
    return this.requestLog;
  }

  get charges(): readonly ChargeRecord[] {
    this.sources?.settleDue();
    return this.chargeLog;
  }

  /** Snapshots of every task, in submission order, with their state as of now. */
  get tasks(): TaskRecord[] {
    this.sources?.settleDue();
    return this.sources?.taskRecords() ?? [];
  }

  /** Balance in USD per account name. */
  get balances(): Record<string, number> {
    this.sources?.settleDue();
    const out: Record<string, number> = {};
    for (const account of this.sources?.accounts.all() ?? []) out[account.name] = account.balanceUsd;
    return out;
  }

  /** Net USD taken from the account: reservations + settlements + chat charges - refunds. */
  chargesTotal(account: string): number {
    this.sources?.settleDue();
    return this.spentByAccount.get(account) ?? 0;
  }

  /**
   * Accepted submissions per prompt: a video task's prompt, or a chat/responses call's last user text.
   * A count above 1 is a duplicate.
   */
  submissionsByPrompt(): Record<string, number> {
    return Object.fromEntries(this.acceptedByPrompt);
  }

  /**
   * Resolves once `holds(ledger)` is true: checked now and after every request or charge recorded, so a
   * test or an embedder awaits what the gateway saw instead of polling for it.
   */
  reached(holds: (ledger: Ledger) => boolean): Promise<void> {
    return new Promise((resolve) => {
      const check = (): void => {
        if (!holds(this)) return;
        this.watchers.delete(check);
        resolve();
      };
      this.watchers.add(check);
      check();
    });
  }

  recordRequest(record: RequestRecord): void {
    this.requestLog.push(record);
    this.changed();
  }

  recordCharge(record: ChargeRecord): void {
    this.chargeLog.push(record);
    this.spentByAccount.set(record.account, (this.spentByAccount.get(record.account) ?? 0) + record.usd);
    const account = this.sources?.accounts.named(record.account);
    if (account) account.balanceUsd -= record.usd;
    this.changed();
  }

  // Watchers run after the recording call returns: a check reads the ledger, and a read settles due tasks,
  // which records charges; checking inside that recording would re-enter it.
  private changed(): void {
    this.sources?.changed?.();
    if (this.watchers.size === 0 || this.notifyQueued) return;
    this.notifyQueued = true;
    queueMicrotask(() => {
      this.notifyQueued = false;
      for (const check of [...this.watchers]) check();
    });
  }

  countSubmission(prompt: string): void {
    this.acceptedByPrompt.set(prompt, (this.acceptedByPrompt.get(prompt) ?? 0) + 1);
  }

  /** The logs as recorded, without settling anything first. */
  saved(): SavedLedger {
    return {
      requests: [...this.requestLog],
      charges: [...this.chargeLog],
      submissionsByPrompt: this.submissionsByPrompt(),
    };
  }

  /** Takes back the logs of saved(), into an empty ledger; the accounts' balances are restored by the caller. */
  restore(saved: SavedLedger): void {
    this.requestLog.push(...saved.requests);
    for (const charge of saved.charges) {
      this.chargeLog.push(charge);
      this.spentByAccount.set(charge.account, (this.spentByAccount.get(charge.account) ?? 0) + charge.usd);
    }
    for (const [prompt, count] of Object.entries(saved.submissionsByPrompt)) this.acceptedByPrompt.set(prompt, count);
  }

  /** What GET /__sim/ledger serves. */
  toJSON(): {
    requests: readonly RequestRecord[];
    tasks: TaskRecord[];
    charges: readonly ChargeRecord[];
    balances: Record<string, number>;
    submissionsByPrompt: Record<string, number>;
  } {
    return {
      requests: this.requests,
      tasks: this.tasks,
      charges: this.charges,
      balances: this.balances,
      submissionsByPrompt: this.submissionsByPrompt(),
    };
  }
}
