// The jobs the dashboard shows and the journals behind them: listed afresh on each request (a new job
// appears without a restart), each job's read-only journal opened once and kept; a journal that can be
// written is opened only for an action, and closed after it.
import { basename } from 'node:path';
import {
  isDatabaseUrl,
  journalJobs,
  openQueries,
  openStore,
  type JournalJob,
  type JournalQueries,
  type JournalStore,
} from '../journal/index.js';

export class JobDirectory {
  private readonly open = new Map<string, Promise<JournalQueries>>();

  /** `source`: a postgres:// URL, one SQLite file, or a folder of SQLite files. */
  constructor(
    private readonly source: string,
    private readonly single: boolean,
  ) {}

  get onDatabase(): boolean {
    return isDatabaseUrl(this.source);
  }

  async list(): Promise<JournalJob[]> {
    if (this.single) return [{ key: basename(this.source, '.db'), location: this.source, job: undefined }];
    return journalJobs(this.source);
  }

  async find(key: string): Promise<JournalJob | undefined> {
    return (await this.list()).find((job) => job.key === key);
  }

  queries(job: JournalJob): Promise<JournalQueries> {
    let opened = this.open.get(job.key);
    if (!opened) {
      opened = openQueries(job.location, { job: job.job ?? job.key });
      // A journal that would not open is tried again on the next request, not remembered as broken.
      opened.catch(() => this.open.delete(job.key));
      this.open.set(job.key, opened);
    }
    return opened;
  }

  /** The job's journal to change, for one action: the caller closes it. */
  store(job: JournalJob): Promise<JournalStore> {
    return openStore(job.location, { job: job.job ?? job.key });
  }

  async close(): Promise<void> {
    const all = [...this.open.values()];
    this.open.clear();
    await Promise.all(all.map((opened) => opened.then((q) => q.close()).catch(() => {})));
  }
}
