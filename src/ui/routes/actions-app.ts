// The dashboard's actions (cancel, retry, resolve): a confirmation page, then the confirmed post that acts.
// Read-only unless --allow-actions; refused while the job is frozen or a live run holds what it would change.
import { Hono, type Context } from 'hono';
import type { JournalJob } from '../../journal/index.js';
import { ACTIONS, liveRunRefusal, refusalOf, type ActionInput, type ActionSpec } from '../actions.js';
import type { UiContext } from '../context.js';
import { jobSummary, type JobSummary } from '../job-view.js';
import { confirmBody } from '../pages/forms-page.js';
import { page } from '../pages/layout.js';
import type { Viewer } from '../viewer.js';
import { jobOfPath, type UiEnv } from './ui-env.js';

const READ_ONLY =
  '<h1>Read-only</h1><p>This dashboard was started without <code>--allow-actions</code>: nothing can be changed from it.</p>';
const MAX_REASON = 500;
const MAX_FLASH = 600;

export function actionsApp(ctx: UiContext): Hono<UiEnv> {
  const app = new Hono<UiEnv>();

  app.get('/jobs/:job/confirm/:action', async (c) => {
    const asked = await askedAction(c, ctx);
    if (asked instanceof Response) return asked;
    const { job, name, action, viewer } = asked;
    const view = await jobSummary(job, await ctx.directory.queries(job));
    const notNow = refusalNow(action, view);
    if (notNow) return c.text(notNow, 409);
    const id = action.row ? c.req.query('id') : undefined;
    return c.html(
      page({ title: `gbatch: ${action.title}`, viewer }, confirmBody(job.key, view.name, name, action, viewer, id)),
    );
  });

  app.post('/jobs/:job/actions/:action', async (c) => {
    const asked = await askedAction(c, ctx);
    if (asked instanceof Response) return asked;
    const { job, name, action, viewer } = asked;
    const form = await c.req.parseBody();
    if (form.confirm !== 'yes') return c.text('not confirmed: post confirm=yes from the confirmation page', 400);
    const input = actionInput(form, action);
    const summary = await jobSummary(job, await ctx.directory.queries(job));
    const notNow = refusalNow(action, summary);
    if (notNow) return c.text(notNow, 409);
    const { said, bad } = await act(ctx, job, { name, action, viewer }, input, summary.journalArg);
    if (viewer.via === 'bearer') return c.json({ ok: !bad, message: said }, bad ? 409 : 200);
    const back = input.id
      ? `/jobs/${encodeURIComponent(job.key)}/rows/${encodeURIComponent(input.id)}`
      : `/jobs/${encodeURIComponent(job.key)}`;
    return c.redirect(`${back}?flash=${ctx.flashes.keep({ text: said.slice(0, MAX_FLASH), bad })}`, 303);
  });

  return app;
}

interface AskedAction {
  job: JournalJob;
  name: string;
  action: ActionSpec;
  viewer: Viewer;
}

/** The job and action a path names, asked by a viewer who may act; else the answer that refuses. */
async function askedAction(c: Context<UiEnv>, ctx: UiContext): Promise<AskedAction | Response> {
  const job = await jobOfPath(c, ctx);
  if (job instanceof Response) return job;
  const viewer = c.get('viewer');
  const name = c.req.param('action') ?? '';
  const action = ACTIONS[name];
  if (!action) return c.text('no such action', 404);
  if (!viewer.canAct) return c.html(page({ title: 'gbatch: read-only', viewer }, READ_ONLY), 403);
  return { job, name, action, viewer };
}

/** Why the action cannot be taken now: the job is frozen, or a live run holds what it would change. */
function refusalNow(action: ActionSpec, summary: JobSummary): string | undefined {
  if (summary.frozen) return summary.frozen;
  const waits = liveRunRefusal(action, summary.liveRunners);
  return waits && `not now: ${waits}`;
}

function actionInput(form: Record<string, unknown>, action: ActionSpec): ActionInput {
  return {
    id: action.row ? String(form.id ?? '') : undefined,
    reason:
      typeof form.reason === 'string'
        ? form.reason
            .replace(/[\u0000-\u001f\u007f]+/g, ' ')
            .trim()
            .slice(0, MAX_REASON)
        : undefined,
    notBilled: form.not_billed === '1',
  };
}

/** Runs the action on the job's journal; a refusal the journal gives is said, anything else is a bug. */
async function act(
  ctx: UiContext,
  job: JournalJob,
  asked: Omit<AskedAction, 'job'>,
  input: ActionInput,
  journalArg: string,
): Promise<{ said: string; bad: boolean }> {
  const operator = { by: 'operator' as const, via: 'ui' as const, who: asked.viewer.who };
  const journal = await ctx.directory.store(job);
  try {
    const said = await asked.action.run(journal, input, operator, journalArg);
    ctx.log(`${asked.viewer.who}: ${asked.name} on ${job.key}${input.id ? ` row ${input.id}` : ''}: ${said}`);
    return { said, bad: false };
  } catch (err) {
    const refusal = refusalOf(err);
    if (refusal === undefined) throw err;
    return { said: `refused: ${refusal}`, bad: true };
  } finally {
    await journal.close();
  }
}
