// The run's notifications: budget thresholds sent in the background as the run's committed spend
// crosses them, and one summary when the run ends, awaited (bounded) before the run returns. Nothing
// here can block a submission or change the run's exit code: every failure is one log line. Among
// runners sharing a job the journal elects who sends a threshold (and the run decides who sends the end).
import { systemClock, type Clock } from '../core/clock.js';
import type { EventEmitter } from 'node:events';
import { hostname } from 'node:os';
import type { Redactor } from '../gateway/redact.js';
import type { JobNotices } from '../journal/job-notices.js';
import type { Progress, RunEvents } from '../pipeline/context.js';
import { runEndedBody, thresholdBody, type NotificationBody, type RunSummary } from './body.js';
import { committedPct, crossedThreshold, DEFAULT_SEND_POLICY, type SendPolicy } from './policy.js';
import { notifyAgent, postNotification } from './send.js';
import { displayUrl, type NotifySettings } from './targets.js';

/** How often the committed spend is compared with the thresholds during a run. */
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

export class RunNotifier {
  private readonly policy: SendPolicy;
  private readonly agent;
  private readonly inFlight = new Set<Promise<void>>();
  /** Threshold elections still asking the journal; a won one adds its sends to inFlight. */
  private readonly elections = new Set<Promise<void>>();
  private readonly announced = new Set<number>();
  private startPct: number | undefined;
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
  }

  get active(): boolean {
    return this.settings.urls.length > 0;
  }

  /**
   * Watches the run's money: the start is the baseline; a few times a second the committed spend is
   * read from memory (no journal read) and a threshold fires when crossed after the start.
   */
  attach(events: EventEmitter<RunEvents>): void {
    if (!this.active || this.settings.thresholds.length === 0) return;
    events.on('started', (p, spendNow, notices) => {
      this.notices = notices;
      if (p.budgetUsd === undefined) {
        this.options.log('--notify-at: no budget is in force for this job, so no threshold can be crossed');
        return;
      }
      const budgetUsd = p.budgetUsd;
      this.startPct = committedPct(p.spend, budgetUsd);
      let counts = p.counts;
      events.on('progress', (progress) => {
        counts = progress.counts;
      });
      this.watch = setInterval(() => this.check({ counts, spend: spendNow(), budgetUsd, pausedUntil: 0 }), WATCH_MS);
      this.watch.unref();
    });
  }

  /** The run is over: no more threshold checks (finish makes the last one with the final money). */
  stopWatching(): void {
    if (this.watch) clearInterval(this.watch);
    this.watch = undefined;
  }

  /** A threshold crossed since the run started is announced once; the send runs on its own. */
  check(p: Progress): void {
    if (this.startPct === undefined || p.budgetUsd === undefined || this.closed) return;
    const crossed = crossedThreshold(
      this.settings.thresholds,
      this.startPct,
      committedPct(p.spend, p.budgetUsd),
      this.announced,
    );
    if (!crossed) return;
    for (const t of crossed.covers) this.announced.add(t);
    const { budgetUsd } = p;
    const send = (): void => {
      try {
        this.sendAll(
          thresholdBody(
            {
              job: this.options.job,
              thresholdPct: crossed.announce,
              committedUsd: p.spend.actualUsd + p.spend.reservedUsd,
              spendUsd: p.spend.actualUsd,
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
      this.notices.claim(`budget-threshold:${crossed.announce}`).then((won) => {
        if (won) send();
      }, send),
    );
  }

  /**
   * The end-of-run summary (none when another runner of the job reports its end); resolves when every
   * notification has been delivered or given up (bounded).
   */
  async finish(summary: Omit<RunSummary, 'host'> | undefined, last?: Progress): Promise<void> {
    this.stopWatching();
    if (!this.active) return;
    // Among runners sharing the job the journal is closed by now, so no election could be held: the
    // thresholds were watched while the run went on.
    if (last && !this.notices) this.check(last);
    if (summary) {
      try {
        this.sendAll(runEndedBody({ ...summary, host: this.host }, this.options.redact));
      } catch (err) {
        // A notification must never change how the run ends: a body that cannot be built is one line.
        this.stats.failed++;
        this.options.log(`notification (run-ended) not sent: ${this.options.redact((err as Error).message)}`);
      }
    }
    while (this.elections.size > 0) await Promise.all([...this.elections]);
    this.closed = true;
    while (this.inFlight.size > 0) await Promise.all([...this.inFlight]);
    await this.agent.close().catch(() => undefined);
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
