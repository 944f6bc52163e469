// What the dashboard's routes share: the request's signed-in viewer, and the job a path names.
import type { Context } from 'hono';
import type { HttpBindings } from '@hono/node-server';
import type { JournalJob } from '../../journal/index.js';
import type { UiContext } from '../context.js';
import { page } from '../pages/layout.js';
import type { Viewer } from '../viewer.js';

export type UiEnv = { Bindings: HttpBindings; Variables: { viewer: Viewer } };

/** The job of the path's `:job`, or the page that says there is none. */
export async function jobOfPath(c: Context<UiEnv>, ctx: UiContext): Promise<JournalJob | Response> {
  return (
    (await ctx.directory.find(c.req.param('job') ?? '')) ??
    c.html(
      page(
        { title: 'gbatch: no such job', viewer: c.get('viewer') },
        '<h1>No such job</h1><p><a href="/">All jobs</a></p>',
      ),
      404,
    )
  );
}
