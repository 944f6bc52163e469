// A row's s3:// output, streamed through the dashboard (signed in like every page): a browser opens or plays
// a video without credentials of its own. Only the object a row records is served, never a key the request
// names; one Range is honoured, so a video can be sought.
import { Hono } from 'hono';
import { Readable } from 'node:stream';
import { isObjectLocation } from '../../core/object-location.js';
import { rangedResponse } from '../../io/file-response.js';
import type { UiContext } from '../context.js';
import { jobOfPath, type UiEnv } from './ui-env.js';

export function outputsApp(ctx: UiContext): Hono<UiEnv> {
  const app = new Hono<UiEnv>();

  app.get('/jobs/:job/rows/:id/output', async (c) => {
    const job = await jobOfPath(c, ctx);
    if (job instanceof Response) return job;
    const item = await (await ctx.directory.queries(job)).get(c.req.param('id'));
    const uri = item?.outputPath;
    if (!uri || !isObjectLocation(uri)) return c.text('this row has no output on object storage', 404);
    const store = await ctx.outputs.storeOf(uri);
    const size = await store.sizeOf(uri);
    if (size === undefined) return c.text(`${uri} is no longer there`, 404);
    const type = uri.endsWith('.mp4') ? 'video/mp4' : 'application/octet-stream';
    return rangedResponse(
      size,
      (start, end) => Readable.toWeb(Readable.from(store.read(uri, start, end))) as ReadableStream<Uint8Array>,
      c.req.header('range'),
      type,
    );
  });

  return app;
}
