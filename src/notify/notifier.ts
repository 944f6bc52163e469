// The run's notifications: budget thresholds sent in the background as the run's billed spend (or, for
// --notify-reserved-at, billed plus reserved) crosses them, and one summary when the run ends, awaited
// (bounded) before the run returns. Nothing here can block a submission or change the run's exit code:
// every failure is one log line. Among
// runners sharing a job the journal elects who sends a threshold (and the run decides who sends the end).
import { systemClock, type Clock } from '../core/clock.js';
import type { EventEmitter } from 'node:events';
import { hostname } from 'node:os';
import type { Redactor } from '../gateway/redact.js';
import type { JobNotices } from '../journal/job-notices.js';
import type { Progress, RunEvents } from '../pipeline/index.js';
import { runEndedBody, type RunSummary } from './body.js';
import type { NotificationBody } from './body-format.js';
import { crossedThreshold, DEFAULT_SEND_POLICY, thresholdPct, type SendPolicy, type ThresholdBasis } from './policy.js';
import { thresholdBody } from './threshold-body.js';
import { notifyAgent, postNotification } from './send.js';
import { displayUrl, type NotifySettings } from './targets.js';

/** How often the spend is compared with the thresholds during a run. */
const WATCH_MS = 200;

export interface NotifierOptions {
  job: string;
  redact: Redactor;
  log: (line: string) => void;
  policy?: Partial<SendPolicy>;
  random?: () => number;
  /** Default: the system clock. */
  clock?: Clock;
}

/** The thresholds of one basis: where the run started from and which were announced. */
interface ThresholdWatch {
  basis: ThresholdBasis;
  flag: '--notify-at' | '--notify-reserved-at';
  thresholds: readonly number[];
  startPct?: number;
  announced: Set<number>;
}

export class RunNotifier {
  private readonly policy: SendPolicy;
  private readonly agent;
  private readonly inFlight = new Set<Promise<void>>();
  /** Threshold elections still asking the journal; a won one adds its sends to inFlight. */
  private readonly elections = new Set<Promise<void>>();
  private readonly watches: ThresholdWatch[];
  private started = false;
  /** Runners sharing the job: the journal elects which one sends each threshold. */
  private notices: Pick<JobNotices, 'claim'> | undefined;
  private closed = false;
  private watch: NodeJS.Timeout | undefined;
  readonly host = hostname();
  /** Notifications delivered and attempts made, for tests and the library's result. */
  readonly stats = { sent: 0, failed: 0, attempts: 0 };

  constructor(
    private readonly settings: NotifySettings,
    private readonly options: NotifierOptions,
  ) {
    this.policy = { ...DEFAULT_SEND_POLICY, ...options.policy };
    this.agent = notifyAgent(this.policy);
    this.watches = (
      [
        { basis: 'billed', flag: '--notify-at', thresholds: settings.thresholds, announced: new Set() },
        {
          basis: 'reserved',
          flag: '--notify-reserved-at',
          thresholds: settings.reservedThresholds,
          announced: new Set(),
        },
      ] satisfies ThresholdWatch[]
    ).filter((w) => w.thresholds.length > 0);
  }

  get active(): boolean {
    return this.settings.urls.length > 0;
  }

  /**
   * Watches the run's money: the start is the baseline; a few times a second the spend is read from
   * memory (no journal read) and a threshold fires when crossed after the start.
   */
  attach(events: EventEmitter<RunEvents>): void {
    if (!this.active || this.watches.length === 0) return;
    events.on('started', (p, spendNow, notices) => {
      this.notices = notices;
      if (p.budgetUsd === undefined) {
        const flags = this.watches.map((w) => w.flag).join(', ');
        this.options.log(`${flags}: no budget is in force for this job, so no threshold can be crossed`);
        return;
      }
      const budgetUsd = p.budgetUsd;
      for (const watch of this.watches) watch.startPct = thresholdPct(watch.basis, p.spend, budgetUsd);
      this.started = true;
      let counts = p.counts;
      events.on('progress', (progress) => {
        counts = progress.counts;
      });
      this.watch = setInterval(() => this.check({ counts, spend: spendNow(), budgetUsd, pausedUntil: 0 }), WATCH_MS);
      this.watch.unref();
    });
    // The last look, with the final money, while the journal can still hold an election: a crossing in the
    // run's last moments (between two ticks) is announced too, by one runner of the job.
    events.on('ending', (p, hold) => {
      this.stopWatching();
      this.check(p);
      hold(this.electionsHeld());
    });
  }

  /** The run is over: no more threshold checks (its `ending` made the last one, with the final money). */
  stopWatching(): void {
    if (this.watch) clearInterval(this.watch);
    this.watch = undefined;
  }

  /** A threshold crossed since the run started is announced once; the send runs on its own. */
  private check(p: Progress): void {
    if (!this.started || p.budgetUsd === undefined || this.closed) return;
    for (const watch of this.watches) this.checkWatch(watch, p, p.budgetUsd);
  }

  private checkWatch(watch: ThresholdWatch, p: Progress, budgetUsd: number): void {
    const crossed = crossedThreshold(
      watch.thresholds,
      watch.startPct ?? 0,
      thresholdPct(watch.basis, p.spend, budgetUsd),
      watch.announced,
    );
    if (!crossed) return;
    for (const t of crossed.covers) watch.announced.add(t);
    const send = (): void => {
      try {
        this.sendAll(
          thresholdBody(
            {
              job: this.options.job,
              basis: watch.basis,
              thresholdPct: crossed.announce,
              billedUsd: p.spend.actualUsd,
              reservedUsd: p.spend.reservedUsd,
              budgetUsd,
              counts: p.counts,
              at: Date.now(),
              host: this.host,
            },
            this.options.redact,
          ),
        );
      } catch (err) {
        // Called from a timer: nothing may escape into the run.
        this.stats.failed++;
        this.options.log(`notification (budget-threshold) not sent: ${this.options.redact((err as Error).message)}`);
      }
    };
    if (!this.notices) {
      send();
      return;
    }
    // Every runner of the job sees the same crossing: the one the journal elects sends it. A journal that
    // cannot say gets it sent anyway: twice is better than never.
    this.track(
      this.notices.claim(`budget-threshold:${watch.basis}:${crossed.announce}`).then((won) => {
        if (won) send();
      }, send),
    );
  }

  /**
   * The end-of-run summary (none when another runner of the job reports its end); resolves when every
   * notification has been delivered or given up (bounded).
   */
  async finish(summary: Omit<RunSummary, 'host'> | undefined): Promise<void> {
    this.stopWatching();
    if (!this.active) return;
    if (summary) {
      try {
        this.sendAll(runEndedBody({ ...summary, host: this.host }, this.options.redact));
      } catch (err) {
        // A notification must never change how the run ends: a body that cannot be built is one line.
        this.stats.failed++;
        this.options.log(`notification (run-ended) not sent: ${this.options.redact((err as Error).message)}`);
      }
    }
    await this.electionsHeld();
    this.closed = true;
    while (this.inFlight.size > 0) await Promise.all([...this.inFlight]);
    await this.agent.close().catch(() => undefined);
  }

  private async electionsHeld(): Promise<void> {
    while (this.elections.size > 0) await Promise.all([...this.elections]);
  }

  private track(election: Promise<void>): void {
    this.elections.add(election);
    void election.finally(() => this.elections.delete(election));
  }

  private sendAll(body: NotificationBody): void {
    const json = JSON.stringify(body);
    for (const url of this.settings.urls) {
      const sending = postNotification(url, json, this.policy, {
        dispatcher: this.agent,
        clock: this.options.clock ?? systemClock,
        random: this.options.random ?? Math.random,
      }).then(
        (outcome) => {
          this.stats.attempts += outcome.attempts;
          if (outcome.ok) this.stats.sent++;
          else {
            this.stats.failed++;
            this.options.log(
              `notification (${body.event}) to ${displayUrl(url)} not delivered: ${outcome.reason}; the run is not affected`,
            );
          }
        },
        (err: unknown) => {
          this.stats.failed++;
          this.options.log(
            `notification (${body.event}) to ${displayUrl(url)} not delivered: ${(err as Error).message}`,
          );
        },
      );
      this.inFlight.add(sending);
      void sending.finally(() => this.inFlight.delete(sending));
    }
  }
}
