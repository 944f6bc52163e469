// A live runner learns of `gbatch cancel` from the journal: it reads the job's cancellation (one cheap row)
// every few hundred ms, stops submitting at once when it appears, and acknowledges it on its own runner
// row, which `gbatch cancel` waits for. The journal refuses every `submit` of a cancelled job anyway:
// this watch is what stops the requests whose intents were already written.
import { positiveKnob } from '../../core/test-knob.js';
import type { JobCancel } from '../../journal/index.js';
import { log, type LaneContext } from '../context.js';
import { repeatWithoutOverlap, type Repeating } from '../repeat.js';

/** How often a runner reads the job's cancellation; GBATCH_CANCEL_CHECK_MS overrides it (a test knob). */
export function cancelCheckMs(env: NodeJS.ProcessEnv = process.env): number {
  return positiveKnob(env, 'GBATCH_CANCEL_CHECK_MS', 1000);
}

export class CancelWatch {
  private repeating: Repeating | undefined;
  private seen: JobCancel | undefined;

  constructor(
    private readonly ctx: LaneContext,
    private readonly onCancel: (cancel: JobCancel) => void,
    private readonly everyMs = cancelCheckMs(),
  ) {}

  /** The cancellation this run saw (undefined: none). */
  get cancel(): JobCancel | undefined {
    return this.seen;
  }

  /** Reads the job's cancellation once; on the first sight, stops submissions and acknowledges it. */
  async check(): Promise<JobCancel | undefined> {
    if (this.seen) return this.seen;
    const cancel = await this.ctx.journal.jobCancel();
    if (!cancel || this.seen) return this.seen;
    await this.learn(cancel);
    return cancel;
  }

  /**
   * The job's cancellation, learnt from the journal or from the process that wrote it: submissions stop at
   * once (before anything awaits), then it is acknowledged.
   */
  async learn(cancel: JobCancel): Promise<void> {
    if (this.seen) return;
    this.seen = cancel;
    this.onCancel(cancel);
    await this.ctx.journal.membership.acknowledgeCancel();
  }

  start(): void {
    this.repeating = repeatWithoutOverlap(this.everyMs, async () => {
      if (this.seen) return this.stop();
      await this.check().then(
        () => undefined,
        (err: unknown) => {
          // A missed read (the journal busy) is harmless: the journal refuses submits of a cancelled job anyway.
          log(this.ctx, `could not read the job's cancellation: ${(err as Error).message}`);
        },
      );
    });
  }

  stop(): void {
    this.repeating?.stop();
    this.repeating = undefined;
  }
}

/** How a cancelled row says why it was never sent (its results line's error). */
export function cancelledError(cancel: JobCancel): { code: string; message: string } {
  return {
    code: 'cancelled',
    message: `cancelled by the operator (gbatch cancel)${cancel.reason ? `: ${cancel.reason}` : ''}; never sent`,
  };
}
