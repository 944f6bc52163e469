// Is the journal this run writes still there, and still ours? A journal lost under a live run (a file
// deleted or replaced: the journal says, membership.lost()) would take every task id with it; a lock or
// lease taken over means another runner now owns the rows. Either way the run must stop.
import type { JournalFileLoss, RunnerMembership } from '../../journal/index.js';
import type { UnrecordedOutcome } from '../ending/unrecorded.js';

export type JournalLoss = { kind: JournalFileLoss } | { kind: 'lock-lost' };

/** Between two checks on the submission path at most this much time passes unchecked (the heartbeat checks too). */
const CLAIM_CHECK_MS = 50;

export class JournalGuard {
  private readonly unrecordedOutcomes: UnrecordedOutcome[] = [];
  private loss: JournalLoss | undefined;
  private lastCheck = 0;

  constructor(
    private readonly membership: Pick<RunnerMembership, 'lost'>,
    private readonly onLoss: (loss: JournalLoss) => void,
  ) {}

  get lost(): JournalLoss | undefined {
    return this.loss;
  }

  /** Asks the journal whether it was lost (a file: one stat of its path). */
  check(): void {
    if (this.loss) return;
    this.lastCheck = performance.now();
    const verdict = this.membership.lost();
    if (verdict) this.lose({ kind: verdict });
  }

  /** As check(), at most every CLAIM_CHECK_MS: cheap enough before every claim. */
  checkSoon(): void {
    if (performance.now() - this.lastCheck >= CLAIM_CHECK_MS) this.check();
  }

  /**
   * A task id or an answer the journal refused (this run lost its standing): kept for the run's last lines, never
   * dropped.
   */
  keepUnrecorded(outcome: UnrecordedOutcome): void {
    this.unrecordedOutcomes.push(outcome);
  }

  get unrecorded(): readonly UnrecordedOutcome[] {
    return this.unrecordedOutcomes;
  }

  lose(loss: JournalLoss): void {
    if (this.loss) return;
    this.loss = loss;
    this.onLoss(loss);
  }
}
