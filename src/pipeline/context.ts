// What every lane of a run shares: the journal, the gateway, the clock, the money and the run's options.
import { EventEmitter } from 'node:events';
import type { Clock } from '../core/clock.js';
import type { ModelLimits } from '../core/model-limits.js';
import type { PricingTable } from '../core/pricing.js';
import type { ItemState } from '../core/states.js';
import type { GatewayClient } from '../gateway/client.js';
import type { GatewayExchange } from '../gateway/client-types.js';
import type { CommitQueue, Item, ItemError, JournalRun } from '../journal/index.js';
import type { BudgetGuard } from './budget-guard.js';
import type { RunSnapshot } from '../core/run-snapshot.js';
import type { StartForecast } from '../core/start-forecast.js';
import type { RequestPacers } from './pacing/request-pacers.js';
import type { SendSlots } from './pacing/send-slots.js';
import type { JobNotices } from '../journal/job-notices.js';
import type { ObjectStore, ObjectStoreOptions } from '../io/output-store.js';
import type { RunVoice } from './voice/run-voice.js';
import type { ExchangeTimes } from './lanes/exchange-times.js';

export interface RunSettings {
  /** A directory, or an s3:// location on S3-compatible object storage. */
  outDir: string;
  /** For an s3:// outDir: the endpoint and addressing of the storage (credentials come from AWS_* only). */
  objectStore?: ObjectStoreOptions;
  concurrency: number;
  pollIntervalMs: number;
  pollConcurrency: number;
  downloadConcurrency: number;
  /** Bounded attempts for a submission the gateway answered without keeping (429, gateway 5xx). */
  maxSubmitAttempts: number;
  /** Opt-in: resend uncertain chat/responses items automatically (a duplicate costs tokens, never a video). */
  resubmitUncertainText: boolean;
  maxAutoResubmits: number;
  /**
   * --retry-failed: further attempts per row in its life (any run) for a refunded video failure or a transient
   * text refusal (unset: none; the CLI default is 2).
   */
  retryFailed?: number;
  /** --retry-backoff: the wait before a row's first automatic retry; doubled for each further one. */
  retryBackoffMs?: number;
  /** The account's requests per minute: every request to the gateway (submissions, polls, downloads). */
  rpm?: number;
  /** Polls and content downloads per minute (default: half of rpm). */
  pollRpm?: number;
  /** --model-limit: per-model caps on submissions in flight and per minute (this runner's own). */
  modelLimits?: ModelLimits;
  /**
   * Clock ms from which nothing new is submitted; after the drain the run stops waiting for tasks and exits 75 (or 4).
   */
  deadlineAt?: number;
  /** After the deadline, how long tasks in flight are still polled and downloaded (0, the default here: not at all). */
  drainMs?: number;
  /** How long requests in flight may still take after the deadline (or a dead gateway) before they are cut. */
  deadlineGraceMs?: number;
  noWait: boolean;
  /** Opt-in: reserve each row's expected estimate, not its bound; the bill may then exceed --budget. */
  budgetMayOverrun?: boolean;
  /** Slots shared with other runs of the process (`gbatch serve`): one --concurrency for them all. */
  sendSlots?: SendSlots;
  /** This run's name among those sharing the slots (each gets its turn). */
  slotOwner?: string;
  /** The --rpm pacers of the process, shared with its other runs (`gbatch serve`): used instead of the run's own. */
  sharedPacers?: RequestPacers;
  /**
   * Aborted when another run of the process (`gbatch serve`'s other batches) got the gateway's 402: the
   * balance is the account's, so this run stops submitting as at its own 402.
   */
  balanceStop?: AbortSignal;
  /**
   * Aborted, its reason the job's cancellation (already in the journal), when the process cancelled the job
   * itself (`gbatch serve`'s batch cancel): this run stops sending at once, before the cancel is answered,
   * without waiting for its next read of the journal.
   */
  cancelStop?: AbortSignal;
  /** The command that sends a cancelled job's items again, as the run names the job (src/core/job-address.ts). */
  retryCancelled?: string;
}

export interface Progress {
  counts: Record<ItemState, number>;
  spend: { reservedUsd: number; actualUsd: number };
  budgetUsd?: number;
  pausedUntil: number;
}

export interface RunEvents {
  transition: [item: Item, from: ItemState | undefined];
  log: [line: string];
  progress: [progress: Progress];
  /**
   * Once, before the first submission: the money the run starts from, a reader of its money as it goes, and
   * (runners sharing the job) the journal's election of which runner sends each notification.
   */
  started: [
    progress: Progress,
    spendNow: () => { reservedUsd: number; actualUsd: number },
    notices?: Pick<JobNotices, 'claim'>,
  ];
  /**
   * Once, when the run's work is over and before it leaves the job, the journal still open: its final money. A
   * listener whose answer needs the journal (a threshold's election among runners) hands that work to `hold`.
   */
  ending: [progress: Progress, hold: (work: Promise<void>) => void];
  /** Answered rows whose line is now in results.jsonl (succeeded -> downloaded), a batch at a time. */
  stored: [ids: readonly string[]];
  /** A poll or a download failed (the row keeps its state; the lane tries again, or a later run does). */
  laneError: [lane: 'poll' | 'download', error: ItemError];
  /**
   * Once, before the first send: the forecast the job's record keeps (made by this run when `made`, else by an
   * earlier one); none when the job keeps none (its first sending run found nothing to send).
   */
  forecast: [forecast: StartForecast, made: boolean];
  /** The run as the live view draws it, a few times a second (only while someone listens). */
  snapshot: [snapshot: RunSnapshot];
  /** A request to the gateway ended: its lane and the status answered (null: a transport failure). */
  request: [exchange: GatewayExchange];
  /** A journal transaction of the lanes committed: how long it took and how many changes it carried. */
  commit: [seconds: number, changes: number];
  /** This runner's lease (its lock, on SQLite) was refreshed, lost, or its refresh skipped (the journal busy). */
  lease: [outcome: 'renewed' | 'lost' | 'skipped'];
}

/** Asked before each submission's intent is written and again right before its request leaves. */
export interface SubmitGate {
  /** False once nothing new may be sent (a stop, or the deadline passed: that stops the run now). */
  allows(): boolean;
}

export interface RunContext {
  journal: JournalRun;
  commits: CommitQueue;
  gateway: GatewayClient;
  clock: Clock;
  pricing: PricingTable;
  budget: BudgetGuard;
  settings: RunSettings;
  events: EventEmitter<RunEvents>;
  /** The words of the lines an operator and a server's client are told differently. */
  voice: RunVoice;
  /** Aborted when no new submission may start: a signal, the deadline, a dead gateway, the gateway's 402. */
  submitStop: AbortController;
  /**
   * Aborted when the run stops waiting for tasks (no new poll or download starts): a signal, the deadline, a dead
   * gateway.
   */
  stop: AbortController;
  /** Aborted when requests on the wire must be cut (a second signal, or the grace period ran out). */
  hardStop: AbortController;
  /**
   * Aborted when submissions on the wire must be cut: with hardStop, or the deadline's grace ran out
   * while polls and downloads still drain. Absent: hardStop alone.
   */
  submitCut?: AbortController;
  /** The --rpm / --poll-rpm pacers (absent: nothing paced). */
  pacers?: RequestPacers;
  /** Asked before each submission is journaled and again right before it leaves (the deadline, stops). */
  submitGate: SubmitGate;
  /** A lane failed (a journal that cannot be written, a bug): every lane stops at once; the run ends with it. */
  laneFailed(err: unknown): void;
  random: () => number;
  /** The account the gateway bills (a hash of its URL and key): runners sharing a job pace and pause it together. */
  account: string;
  /** The object storage of an s3:// outDir, checked writable (absent: outputs go to the directory). */
  objects?: ObjectStore;
  /** How long the submissions take, on a shared journal, whose commits linger by it (absent: not measured). */
  exchanges?: ExchangeTimes;
}

/** The run's context as one lane sees it: of the run's settings, only the `Used` ones it acts on. */
export type LaneContext<Used extends keyof RunSettings = never> = Omit<RunContext, 'settings'> & {
  settings: Pick<RunSettings, Used>;
};

export function log(ctx: Pick<RunContext, 'events'>, line: string): void {
  ctx.events.emit('log', line);
}
