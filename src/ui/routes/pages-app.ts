// The dashboard's pages: every job, a job, its rows and a row.
import { Hono } from 'hono';
import type { UiContext } from '../context.js';
import { jobPage, jobSummary, type JobSummary } from '../job-view.js';
import { jobBody } from '../pages/job-page.js';
import { jobsBody, parseJobsQuery, selectJobs } from '../pages/jobs-page.js';
import { page } from '../pages/layout.js';
import { rowBody, rowsBody } from '../pages/rows-page.js';
import { parseRowFilter, rowPage } from '../row-query.js';
import { jobOfPath, type UiEnv } from './ui-env.js';

export function pagesApp(ctx: UiContext): Hono<UiEnv> {
  const app = new Hono<UiEnv>();

  app.get('/', async (c) => {
    const query = parseJobsQuery(new URL(c.req.url).searchParams);
    const jobs: JobSummary[] = [];
    const unreadable: string[] = [];
    for (const job of await ctx.directory.list()) {
      try {
        jobs.push(await jobSummary(job, await ctx.directory.queries(job)));
      } catch (err) {
        unreadable.push(`${job.key}: ${(err as Error).message}`);
      }
    }
    const body = jobsBody(jobs, selectJobs(jobs, query), query, unreadable);
    return c.html(page({ title: 'gbatch: jobs', viewer: c.get('viewer') }, body));
  });

  app.get('/jobs/:job', async (c) => {
    const job = await jobOfPath(c, ctx);
    if (job instanceof Response) return job;
    const view = await jobPage(job, await ctx.directory.queries(job));
    const flash = ctx.flashes.take(c.req.query('flash'));
    return c.html(
      page(
        { title: `gbatch: ${view.name}`, viewer: c.get('viewer'), flash, liveJob: job.key },
        jobBody(view, c.get('viewer')),
      ),
    );
  });

  app.get('/jobs/:job/rows', async (c) => {
    const job = await jobOfPath(c, ctx);
    if (job instanceof Response) return job;
    const journal = await ctx.directory.queries(job);
    const filter = parseRowFilter(new URL(c.req.url).searchParams);
    const { rows, more } = await rowPage(journal, filter);
    const view = await jobSummary(job, journal);
    return c.html(
      page(
        { title: `gbatch: rows of ${view.name}`, viewer: c.get('viewer') },
        rowsBody(view, await journal.rowFacets(), filter, rows, more),
      ),
    );
  });

  app.get('/jobs/:job/rows/:id', async (c) => {
    const job = await jobOfPath(c, ctx);
    if (job instanceof Response) return job;
    const journal = await ctx.directory.queries(job);
    const item = await journal.get(c.req.param('id'));
    if (!item)
      return c.html(page({ title: 'gbatch: no such row', viewer: c.get('viewer') }, '<h1>No such row</h1>'), 404);
    const view = await jobSummary(job, journal);
    const body = rowBody(view, item, await journal.events(item.id), c.get('viewer'));
    return c.html(
      page(
        { title: `gbatch: ${item.id}`, viewer: c.get('viewer'), flash: ctx.flashes.take(c.req.query('flash')) },
        body,
      ),
    );
  });

  return app;
}
