// A job page's live figures: server-sent events, one stream per open page, fed by the job's one feed.
import { Hono, type Context } from 'hono';
import { getCookie } from 'hono/cookie';
import { streamSSE } from 'hono/streaming';
import type { UiContext } from '../context.js';
import { LatestFrame } from '../live-feeds.js';
import { SESSION_COOKIE } from '../sessions.js';
import { jobOfPath, type UiEnv } from './ui-env.js';

export function liveApp(ctx: UiContext): Hono<UiEnv> {
  const app = new Hono<UiEnv>();
  app.get('/jobs/:job/live', async (c) => {
    const job = await jobOfPath(c, ctx);
    if (job instanceof Response) return job;
    const outbox = new LatestFrame();
    const place = ctx.live.join(job, streamHolder(c), (frame) => outbox.put(frame));
    if (typeof place === 'string') return c.text(place, 429);
    return streamSSE(
      c,
      async (stream) => {
        try {
          // A client gone before this ran has aborted already: onAbort would never call back.
          const closed = new Promise<void>((resolve) => {
            stream.onAbort(resolve);
            if (stream.aborted || stream.closed) resolve();
          });
          outbox.attach((data) => stream.writeSSE({ event: 'figures', data }));
          await closed;
        } finally {
          place.leave();
        }
      },
      async (err) => ctx.log(`live figures of ${job.key}: ${err.message}`),
    );
  });
  return app;
}

/** Whom a live stream is counted against: the session, or the bearer token; no one without sign-in. */
function streamHolder(c: Context<UiEnv>): string | undefined {
  const viewer = c.get('viewer');
  if (viewer.via === 'bearer') return `bearer:${viewer.who}`;
  if (viewer.via === 'session') return `session:${getCookie(c, SESSION_COOKIE) ?? ''}`;
  return undefined;
}
