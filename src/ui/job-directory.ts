// The jobs the dashboard shows and the journals behind them: listed afresh on each request (a new job
// appears without a restart), each job's read-only queries opened once and kept; a journal that can be
// written is opened only for an action, and closed after it.
import {
  isDatabaseUrl,
  openJournalReader,
  openStore,
  type JournalJob,
  type JournalQueries,
  type JournalReader,
  type JournalStore,
} from '../journal/index.js';

export class JobDirectory {
  private readonly open = new Map<string, Promise<JournalQueries>>();

  private constructor(
    private readonly reader: JournalReader,
    /** Where an action opens a job's journal to change it: the URL with its password, or the files. */
    private readonly source: string,
  ) {}

  /** `source`: a postgres:// URL, one SQLite file, or a folder of SQLite files. */
  static async open(source: string): Promise<JobDirectory> {
    return new JobDirectory(await openJournalReader(source), source);
  }

  list(): Promise<JournalJob[]> {
    return this.reader.jobs();
  }

  async find(key: string): Promise<JournalJob | undefined> {
    return (await this.list()).find((job) => job.key === key);
  }

  queries(job: JournalJob): Promise<JournalQueries> {
    let opened = this.open.get(job.key);
    if (!opened) {
      opened = this.reader.queries(job);
      // A journal that would not open is tried again on the next request, not remembered as broken.
      opened.catch(() => this.open.delete(job.key));
      this.open.set(job.key, opened);
    }
    return opened;
  }

  /** The job's journal to change, for one action: the caller closes it. */
  store(job: JournalJob): Promise<JournalStore> {
    return openStore(isDatabaseUrl(this.source) ? this.source : job.location, { job: job.key });
  }

  async close(): Promise<void> {
    const all = [...this.open.values()];
    this.open.clear();
    await Promise.all(all.map((opened) => opened.then((q) => q.close()).catch(() => {})));
    await this.reader.close();
  }
}
