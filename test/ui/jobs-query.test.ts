import { describe, expect, it } from 'vitest';
import type { JobSummary } from '../../src/ui/job-view.js';
import { parseJobsQuery, selectJobs } from '../../src/ui/pages/jobs-page.js';
import { parseRowFilter, filterParams } from '../../src/ui/row-query.js';

const job = (name: string, kind: JobSummary['standing']['kind'], actual: number, lastAt: number): JobSummary =>
  ({
    key: name,
    name,
    standing: { kind, label: kind },
    finished: 1,
    activity: { firstAt: 0, lastAt },
    header: { job: name, by_model: [], totals: { items: 2, actual_usd: actual, budget_usd: null, delta_usd: 0 } },
  }) as unknown as JobSummary;

describe('the jobs list query', () => {
  const jobs = [
    job('nightly', 'running', 3, 30),
    job('adhoc', 'finished', 9, 10),
    job('night-2', 'needs-operator', 1, 20),
  ];

  it('sorts by last activity, newest first, by default; by name ascending', () => {
    expect(selectJobs(jobs, parseJobsQuery(new URLSearchParams())).map((j) => j.name)).toEqual([
      'nightly',
      'night-2',
      'adhoc',
    ]);
    expect(selectJobs(jobs, parseJobsQuery(new URLSearchParams('sort=name'))).map((j) => j.name)).toEqual([
      'adhoc',
      'night-2',
      'nightly',
    ]);
    expect(selectJobs(jobs, parseJobsQuery(new URLSearchParams('sort=spent&order=asc'))).map((j) => j.name)).toEqual([
      'night-2',
      'nightly',
      'adhoc',
    ]);
  });

  it('filters by name and standing; ignores what it does not know', () => {
    expect(selectJobs(jobs, parseJobsQuery(new URLSearchParams('q=NIGHT'))).map((j) => j.name)).toEqual([
      'nightly',
      'night-2',
    ]);
    expect(selectJobs(jobs, parseJobsQuery(new URLSearchParams('standing=needs-operator'))).map((j) => j.name)).toEqual(
      ['night-2'],
    );
    expect(parseJobsQuery(new URLSearchParams('sort=drop+table&standing=evil'))).toMatchObject({
      sort: 'activity',
      standing: '',
    });
  });
});

describe('the row filter', () => {
  it('keeps only states and kinds that exist, and a positive cursor; round-trips through the URL', () => {
    const filter = parseRowFilter(new URLSearchParams('state=failed&kind=video&model=m&code=c&id=x&after=40'));
    expect(filter).toEqual({ state: 'failed', kind: 'video', model: 'm', errorCode: 'c', id: 'x', afterSeq: 40 });
    expect(parseRowFilter(filterParams(filter, 40))).toEqual(filter);
    expect(parseRowFilter(new URLSearchParams('state=bogus&kind=x&after=-3'))).toMatchObject({
      state: '',
      kind: '',
      afterSeq: 0,
    });
  });
});
