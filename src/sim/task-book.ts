// Video tasks: creation with a reservation and a price snapshot, lazy settlement exactly once when a
// task is first seen past its end time (spec 3.1, 8.3).

import type { Resolution, VideoModel } from '../core/models.js';
import type { Account } from './accounts.js';
import type { Ledger, TaskRecord, TaskState } from './ledger.js';
import type { PriceList, RateSnapshot } from './prices.js';
import type { Random } from './random.js';
import { phaseAt } from './timeline.js';
import { reservationTokens, tokensUsd, videoTokens } from './tokens.js';
import type { Clock, FaultOptions } from './types.js';

/** A validated submission, before any money moves. */
export interface TaskDraft {
  model: VideoModel;
  prompt: string;
  resolution: Resolution;
  seconds: number;
  referenceVideos: number;
}

export interface Quote {
  usd: number;
  rateSnapshot: RateSnapshot;
  groupRatio: number;
}

/** A task as a restart needs it (--state): its record and what was decided at submission. */
export interface SavedTask extends TaskRecord {
  willFail: boolean;
  /** u in [0, 1): final tokens are the formula's times (1 - tokenNoise * u). */
  noise: number;
  settled: boolean;
}

interface SimTask extends SavedTask {
  accountRef: Account;
}

export interface TaskView {
  id: string;
  state: TaskState;
  progress: number;
  record: TaskRecord;
}

export interface TaskBookDeps {
  ledger: Ledger;
  prices: PriceList;
  random: Random;
  clock: Clock;
  taskSeconds: number;
  tokenNoise: number;
  faults: () => FaultOptions;
}

export class TaskBook {
  private readonly tasks = new Map<string, SimTask>();
  /** Unsettled tasks ordered by end time; settled ones are skipped when reached. */
  private readonly due: SimTask[] = [];
  private dueHead = 0;

  constructor(private readonly deps: TaskBookDeps) {}

  /** The reservation at today's live prices: requested resolution, duration and reference seconds. */
  quote(draft: TaskDraft): Quote {
    const hasRef = draft.referenceVideos > 0;
    const rateSnapshot = this.deps.prices.snapshot(draft.model.id, hasRef);
    const rate = rateSnapshot[draft.resolution] ?? 0;
    const groupRatio = this.deps.prices.groupRatio;
    const tokens = reservationTokens(draft.resolution, draft.seconds, draft.referenceVideos);
    return { usd: tokensUsd(tokens, rate, groupRatio), rateSnapshot, groupRatio };
  }

  /** Creates the task and reserves its quote; the caller has checked the balance. */
  create(account: Account, draft: TaskDraft, quote: Quote): TaskRecord {
    const { random, clock, ledger, taskSeconds } = this.deps;
    const faults = this.deps.faults();
    const now = clock.now();
    const task: SimTask = {
      id: `task_${random.base62(24)}`,
      account: account.name,
      accountRef: account,
      model: draft.model.id,
      prompt: draft.prompt,
      requestedResolution: draft.resolution,
      finalResolution: this.chooseFinalResolution(draft, faults),
      seconds: draft.seconds,
      hasReferenceVideo: draft.referenceVideos > 0,
      referenceVideos: draft.referenceVideos,
      reservedUsd: quote.usd,
      rateSnapshot: quote.rateSnapshot,
      groupRatioSnapshot: quote.groupRatio,
      state: 'NOT_START',
      totalTokens: null,
      chargedUsd: quote.usd,
      submittedAt: now,
      endsAt: now + taskSeconds * 1000,
      willFail: random.chance(faults.failRate),
      noise: this.deps.tokenNoise > 0 ? random.next() : 0,
      settled: false,
    };
    this.tasks.set(task.id, task);
    this.enqueue(task);
    ledger.recordCharge({ at: now, account: account.name, kind: 'reserve', taskId: task.id, usd: quote.usd });
    ledger.countSubmission(draft.prompt);
    return this.snapshot(task);
  }

  /** The task if it exists and belongs to the account (spec 4 rule 6: otherwise it is not found). */
  viewFor(account: Account, id: string): TaskView | undefined {
    const task = this.tasks.get(id);
    if (!task || task.accountRef !== account) return undefined;
    const now = this.deps.clock.now();
    const { progress } = this.refresh(task, now);
    return { id: task.id, state: task.state, progress, record: this.snapshot(task) };
  }

  /** Every task as it stands, without moving any forward. */
  saved(): SavedTask[] {
    return [...this.tasks.values()].map(({ accountRef: _account, ...task }) => ({
      ...task,
      rateSnapshot: { ...task.rateSnapshot },
    }));
  }

  /** Takes back the tasks of saved() into an empty book; `account` finds each one's account by name. */
  restore(saved: readonly SavedTask[], account: (name: string) => Account): void {
    for (const task of saved) {
      const restored: SimTask = { ...task, rateSnapshot: { ...task.rateSnapshot }, accountRef: account(task.account) };
      this.tasks.set(restored.id, restored);
      if (!restored.settled) this.enqueue(restored);
    }
  }

  settleDue(): void {
    const now = this.deps.clock.now();
    while (this.dueHead < this.due.length) {
      const next = this.due[this.dueHead]!;
      if (!next.settled && next.endsAt > now) break;
      this.dueHead += 1;
      if (!next.settled) this.refresh(next, now);
    }
    if (this.dueHead > 1024 && this.dueHead * 2 > this.due.length) {
      this.due.splice(0, this.dueHead);
      this.dueHead = 0;
    }
  }

  records(): TaskRecord[] {
    const now = this.deps.clock.now();
    const out: TaskRecord[] = [];
    for (const task of this.tasks.values()) {
      this.refresh(task, now);
      out.push(this.snapshot(task));
    }
    return out;
  }

  private refresh(task: SimTask, now: number): { progress: number } {
    if (task.settled) return { progress: 100 };
    const { phase, progress } = phaseAt(now - task.submittedAt, task.endsAt - task.submittedAt);
    if (phase === 'DONE') this.settle(task, now);
    else task.state = phase;
    return { progress };
  }

  private settle(task: SimTask, now: number): void {
    task.settled = true;
    const { ledger } = this.deps;
    if (task.willFail) {
      task.state = 'FAILURE';
      task.chargedUsd = 0;
      ledger.recordCharge({ at: now, account: task.account, kind: 'refund', taskId: task.id, usd: -task.reservedUsd });
      return;
    }
    const tokens = Math.floor(
      videoTokens(task.finalResolution, task.seconds) * (1 - this.deps.tokenNoise * task.noise),
    );
    const rate = task.rateSnapshot[task.finalResolution] ?? task.rateSnapshot[task.requestedResolution] ?? 0;
    const charge = tokensUsd(tokens, rate, task.groupRatioSnapshot);
    task.state = 'SUCCESS';
    task.totalTokens = tokens;
    task.chargedUsd = charge;
    ledger.recordCharge({
      at: now,
      account: task.account,
      kind: 'settle',
      taskId: task.id,
      usd: charge - task.reservedUsd,
    });
  }

  private chooseFinalResolution(draft: TaskDraft, faults: FaultOptions): Resolution {
    const supported = draft.model.resolutions;
    if (faults.finalResolution !== undefined && supported.includes(faults.finalResolution))
      return faults.finalResolution;
    const others = supported.filter((r) => r !== draft.resolution);
    if (others.length > 0 && this.deps.random.chance(faults.finalResolutionRate)) return this.deps.random.pick(others);
    return draft.resolution;
  }

  private enqueue(task: SimTask): void {
    let lo = this.dueHead;
    let hi = this.due.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.due[mid]!.endsAt <= task.endsAt) lo = mid + 1;
      else hi = mid;
    }
    this.due.splice(lo, 0, task);
  }

  private snapshot(task: SimTask): TaskRecord {
    return {
      id: task.id,
      account: task.account,
      model: task.model,
      prompt: task.prompt,
      requestedResolution: task.requestedResolution,
      finalResolution: task.finalResolution,
      seconds: task.seconds,
      hasReferenceVideo: task.hasReferenceVideo,
      referenceVideos: task.referenceVideos,
      reservedUsd: task.reservedUsd,
      rateSnapshot: { ...task.rateSnapshot },
      groupRatioSnapshot: task.groupRatioSnapshot,
      state: task.state,
      totalTokens: task.totalTokens,
      chargedUsd: task.chargedUsd,
      submittedAt: task.submittedAt,
      endsAt: task.endsAt,
    };
  }
}
