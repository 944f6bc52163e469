// A finished video to its target (a file, or an object): the gateway's content endpoint first, then the
// task's result_url, each GET following redirects itself so the Authorization header is decided per hop
// by origin.

import type { FileHasher } from '../io/file-hasher.js';
import type { BodyTarget } from '../io/output-store.js';
import type { ClientContext } from './client-context.js';
import type { DownloadOptions } from './client-types.js';
import { downloadToFile, type DownloadSource } from './download.js';
import { discard, headerValue, type Exchange } from './http.js';
import { parseHttpUrl, resolveRedirect } from './urls.js';

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const MAX_REDIRECTS = 5;

export async function downloadVideo(
  ctx: ClientContext,
  hasher: FileHasher,
  taskId: string,
  dest: string | BodyTarget,
  opts: DownloadOptions = {},
) {
  const sources: DownloadSource[] = [
    { source: 'content', url: ctx.apiUrl(`/videos/${encodeURIComponent(taskId)}/content`) },
  ];
  const resultUrl = parseHttpUrl(opts.resultUrl);
  if (resultUrl) sources.push({ source: 'result_url', url: resultUrl });
  const { clock, random, backoff, redact, counters } = ctx;
  const open = (start: URL, signal?: AbortSignal) => openFollowingRedirects(ctx, start, signal);
  const deps = { open, clock, random, backoff, redact, hasher, onRetry: () => void counters.retries++ };
  return downloadToFile(deps, taskId, dest, sources, opts.contentAttempts ?? 3, opts.signal, opts.onReceived);
}

/** GET that follows redirects itself, so the Authorization header is decided per hop by origin. */
export async function openFollowingRedirects(ctx: ClientContext, start: URL, signal?: AbortSignal): Promise<Exchange> {
  let url = start;
  for (let hop = 0; ; hop++) {
    const response = await ctx.call('GET', url, { attempt: 1, accept: '*/*', signal });
    const location = headerValue(response.headers, 'location');
    const next = location === undefined ? undefined : resolveRedirect(location, url);
    if (!REDIRECTS.has(response.status) || next === undefined || hop >= MAX_REDIRECTS) return response;
    await discard(response);
    url = next;
  }
}
