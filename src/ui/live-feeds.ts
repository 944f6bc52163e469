// A job's live figures, read once per interval however many pages watch it: one feed per job while it
// has streams, each read fanned out to all of them, stopped (its timer cleared, its frame let go) when the
// last one closes. A stream takes a place first, counted per viewer and in all (core/live-stream-caps).
import { liveStreamRefusal, type LiveStreamCaps } from '../core/live-stream-caps.js';
import { printable } from '../core/printable.js';
import type { JournalJob } from '../journal/index.js';

/** One read of a job: what tells whether it moved, and (only then) the frame its streams receive. */
export interface LiveRead {
  key: string;
  frame(): Promise<string>;
}

export interface LiveFeedsOptions {
  read(job: JournalJob): Promise<LiveRead>;
  intervalMs: number;
  /** Resolves after `ms`, or when `signal` aborts (then the feed is over). */
  wait(ms: number, signal: AbortSignal): Promise<void>;
  caps: LiveStreamCaps;
  log(line: string): void;
}

/** A stream's place in a feed: it receives every new frame until it leaves. */
export interface LivePlace {
  leave(): void;
}

interface Feed {
  job: JournalJob;
  sends: Set<(frame: string) => void>;
  latest: string | undefined;
  stop: AbortController;
}

export class LiveFeeds {
  private readonly feeds = new Map<string, Feed>();
  private readonly perViewer = new Map<string, number>();
  private open = 0;
  private readCount = 0;

  constructor(private readonly options: LiveFeedsOptions) {}

  /** Streams open now. */
  get streams(): number {
    return this.open;
  }

  /** Reads of a job's figures made for its streams since the server started. */
  get reads(): number {
    return this.readCount;
  }

  /**
   * A place in the job's feed for a stream of `viewer` (undefined: no sign-in), or why not. The check and
   * the taking are one synchronous step, so that streams opened at once cannot pass the caps together.
   */
  join(job: JournalJob, viewer: string | undefined, send: (frame: string) => void): LivePlace | string {
    const mine = viewer === undefined ? undefined : (this.perViewer.get(viewer) ?? 0);
    const refusal = liveStreamRefusal({ mine, all: this.open }, this.options.caps);
    if (refusal) return refusal;
    this.open++;
    if (viewer !== undefined) this.perViewer.set(viewer, mine! + 1);
    let feed = this.feeds.get(job.key);
    if (!feed) {
      feed = { job, sends: new Set(), latest: undefined, stop: new AbortController() };
      this.feeds.set(job.key, feed);
      void this.follow(feed);
    }
    // A wrapper of its own: the same function joined twice is two places.
    const own = (frame: string): void => send(frame);
    feed.sends.add(own);
    if (feed.latest !== undefined) own(feed.latest);
    const joined = feed;
    let left = false;
    return {
      leave: () => {
        if (left) return;
        left = true;
        this.open--;
        if (viewer !== undefined) {
          const still = this.perViewer.get(viewer)! - 1;
          if (still === 0) this.perViewer.delete(viewer);
          else this.perViewer.set(viewer, still);
        }
        joined.sends.delete(own);
        if (joined.sends.size === 0) {
          this.feeds.delete(joined.job.key);
          joined.stop.abort();
        }
      },
    };
  }

  /** Ends every feed (the server is closing). */
  close(): void {
    for (const feed of this.feeds.values()) feed.stop.abort();
    this.feeds.clear();
  }

  private async follow(feed: Feed): Promise<void> {
    let last: string | undefined;
    let failing: string | undefined;
    while (!feed.stop.signal.aborted) {
      try {
        this.readCount++;
        const read = await this.options.read(feed.job);
        if (read.key !== last) {
          const frame = await read.frame();
          last = read.key;
          if (feed.stop.signal.aborted) break;
          feed.latest = frame;
          for (const send of feed.sends) send(frame);
        }
        failing = undefined;
      } catch (err) {
        // Said once per cause, not once per interval; the next read tries again.
        const reason = printable((err as Error).message);
        if (reason !== failing) this.options.log(`live figures of ${printable(feed.job.key)}: ${reason}`);
        failing = reason;
      }
      await this.options.wait(this.options.intervalMs, feed.stop.signal);
    }
  }
}

/** The frames a stream has yet to write: only the newest is kept (each is the whole set of figures). */
export class LatestFrame {
  private pending: string | undefined;
  private writer: ((frame: string) => Promise<void>) | undefined;
  private busy = false;

  put(frame: string): void {
    this.pending = frame;
    this.drain();
  }

  attach(writer: (frame: string) => Promise<void>): void {
    this.writer = writer;
    this.drain();
  }

  private drain(): void {
    if (this.busy || !this.writer) return;
    this.busy = true;
    void this.write(this.writer).finally(() => (this.busy = false));
  }

  private async write(writer: (frame: string) => Promise<void>): Promise<void> {
    while (this.pending !== undefined) {
      const frame = this.pending;
      this.pending = undefined;
      try {
        await writer(frame);
      } catch {
        return; // the stream is gone: its place is left by the route
      }
    }
  }
}
