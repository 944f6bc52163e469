// Pure: the pages with a form: sign-in, and the confirmation every action asks for before it changes
// anything (it names the job, the row, what will happen, and posts back with the viewer's form token).
import { esc } from '../../report/html/escape.js';
import type { ActionSpec } from '../actions.js';
import type { Viewer } from '../viewer.js';
import { csrfField } from './layout.js';

export function loginBody(next: string, failed: boolean): string {
  return `<h1>Sign in</h1>
${failed ? '<p class="flash bad" role="alert">That token is not one of this dashboard\'s.</p>' : ''}
<form method="post" action="/login" class="login">
<input type="hidden" name="next" value="${esc(next)}">
<label>Token <input type="password" name="token" autocomplete="current-password" required autofocus></label>
<button type="submit">sign in</button>
</form>
<p class="muted">The tokens are those in GBATCH_UI_TOKENS (or the file GBATCH_UI_TOKENS_FILE) of the server.</p>`;
}

export function confirmBody(
  jobKey: string,
  jobName: string,
  name: string,
  action: ActionSpec,
  viewer: Viewer,
  id: string | undefined,
): string {
  const target = `/jobs/${encodeURIComponent(jobKey)}/actions/${encodeURIComponent(name)}`;
  const back = id
    ? `/jobs/${encodeURIComponent(jobKey)}/rows/${encodeURIComponent(id)}`
    : `/jobs/${encodeURIComponent(jobKey)}`;
  const extra =
    name === 'cancel'
      ? '<label>Reason (kept with the job) <input name="reason" maxlength="500"></label>'
      : name.startsWith('abandon')
        ? '<label><input type="checkbox" name="not_billed" value="1"> the gateway shows it was not billed: release the reservation</label>'
        : '';
  return `<p class="crumbs"><a href="/">jobs</a> / <a href="/jobs/${encodeURIComponent(jobKey)}">${esc(jobName)}</a></p>
<h1>${esc(action.title)}?</h1>
<p>Job <strong>${esc(jobName)}</strong>${id ? `, row <code>${esc(id)}</code>` : ''}.</p>
<p>${esc(action.consequence)}</p>
<form method="post" action="${esc(target)}" class="confirm">
${csrfField(viewer)}
${id ? `<input type="hidden" name="id" value="${esc(id)}">` : ''}
${extra}
<p><button type="submit" name="confirm" value="yes">${esc(action.title)}</button> <a href="${esc(back)}">no, go back</a></p>
</form>`;
}
