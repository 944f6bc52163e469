// The job's notices on PostgreSQL (job-notices.ts): one row per notice sent in the job's current session,
// inserted with ON CONFLICT DO NOTHING so that exactly one runner wins each; a runner that is done records
// `ended:<runner id>`. Deciding whether the runners still at work have all ended is done under the job's
// `notices` lock, so of several runners ending at once exactly one finds itself the last.
import type pg from 'pg';
import type { JobNotices } from '../job-notices.js';
import type { Coordination } from '../store.js';
import { DB_NOW_MS } from './db-time.js';
import type { PgMembership } from './membership.js';

const ENDED = 'ended:';

export class PgJobNotices implements JobNotices {
  constructor(
    private readonly pool: pg.Pool,
    private readonly jobId: () => number | undefined,
    private readonly membership: PgMembership,
    private readonly coordination: Pick<Coordination, 'exclusive'>,
  ) {}

  async begin(): Promise<void> {
    // A runner joining others at work has nothing to clear, whatever they do meanwhile: one that ends sees this
    // runner live, so it cannot be the last and clear the session under it. Only a runner that may be alone
    // queues on the lock (runners starting together would otherwise join one at a time).
    if (await this.othersAtWork()) return;
    await this.coordination.exclusive('notices', async () => {
      if (!(await this.othersAtWork()))
        await this.pool.query('DELETE FROM job_notices WHERE job_id = $1', [this.jobId()]);
    });
  }

  async claim(notice: string): Promise<boolean> {
    const result = await this.pool.query(
      `INSERT INTO job_notices (job_id, notice, runner_id, at) VALUES ($1, $2, $3, ${DB_NOW_MS})
      ON CONFLICT (job_id, notice) DO NOTHING`,
      [this.jobId(), notice, this.membership.runnerId ?? null],
    );
    return result.rowCount === 1;
  }

  async end(): Promise<boolean> {
    const me = this.membership.runnerId;
    if (me === undefined) return true;
    return this.coordination.exclusive('notices', async () => {
      await this.claim(`${ENDED}${me}`);
      const last = !(await this.othersAtWork());
      if (last) await this.pool.query('DELETE FROM job_notices WHERE job_id = $1', [this.jobId()]);
      return last;
    });
  }

  /** Whether another live runner of the job has not ended yet. */
  private async othersAtWork(): Promise<boolean> {
    const me = this.membership.runnerId;
    const live = (await this.membership.liveRunnerIds()).filter((id) => id !== me);
    if (live.length === 0) return false;
    const { rows } = await this.pool.query<{ notice: string }>(
      `SELECT notice FROM job_notices WHERE job_id = $1 AND notice = ANY($2)`,
      [this.jobId(), live.map((id) => `${ENDED}${id}`)],
    );
    return rows.length < live.length;
  }
}
