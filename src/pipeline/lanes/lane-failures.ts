// The first failure of any lane (submissions, polls, downloads, the runners' beats): a journal that cannot
// be written, or a bug. It stops every lane at once: no new submission, poll or download starts, while
// requests already on the wire finish and their answers are journaled. Each lane is watched as it runs,
// so no failure waits for another lane to end before it is seen, and none goes unobserved.
import { printable } from '../../core/printable.js';
import type { RunContext } from '../context.js';

const MESSAGE_CHARS = 300;

export class LaneFailures {
  private first: unknown;
  private tripped = false;

  constructor(private readonly ctx: Pick<RunContext, 'submitStop' | 'stop' | 'events' | 'voice'>) {}

  get failure(): unknown {
    return this.first;
  }

  get failed(): boolean {
    return this.tripped;
  }

  /** Records the run's first failure and stops every lane; later ones are the same cause's echoes. */
  trip(err: unknown): void {
    if (this.tripped) return;
    this.tripped = true;
    this.first = err;
    const message = printable(err instanceof Error ? err.message : String(err)).slice(0, MESSAGE_CHARS);
    this.ctx.events.emit(
      'log',
      `stopping: ${message}; no new submissions, polls or downloads; answers in flight are kept in ${this.ctx.voice.journal}`,
    );
    this.ctx.submitStop.abort('internal error');
    this.ctx.stop.abort('internal error');
  }

  /** The lane's end: its failure trips the stop; never rejects. */
  async watch(lane: Promise<unknown>): Promise<void> {
    try {
      await lane;
    } catch (err) {
      this.trip(err);
    }
  }

  /** After every lane has ended: the first failure, thrown. */
  rethrow(): void {
    if (this.tripped) throw this.first;
  }
}
