// Which endpoint of spec section 4 a method and path name.

import type { Endpoint } from './types.js';

export interface Route {
  endpoint: Endpoint;
  taskId?: string;
}

const POLL_PREFIX = '/v1/video/generations/';
const CONTENT_PREFIX = '/v1/videos/';
const CONTENT_SUFFIX = '/content';

function taskIdFrom(segment: string): string | undefined {
  if (segment === '' || segment.includes('/')) return undefined;
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

export function matchRoute(method: string, path: string): Route | undefined {
  if (method === 'POST') {
    if (path === '/v1/chat/completions') return { endpoint: 'chat' };
    if (path === '/v1/responses') return { endpoint: 'responses' };
    if (path === '/v1/video/generations') return { endpoint: 'submit' };
    return undefined;
  }
  if (method !== 'GET') return undefined;
  if (path === '/v1/models') return { endpoint: 'models' };
  if (path.startsWith(POLL_PREFIX)) {
    const taskId = taskIdFrom(path.slice(POLL_PREFIX.length));
    return taskId === undefined ? undefined : { endpoint: 'poll', taskId };
  }
  if (path.startsWith(CONTENT_PREFIX) && path.endsWith(CONTENT_SUFFIX)) {
    const taskId = taskIdFrom(path.slice(CONTENT_PREFIX.length, -CONTENT_SUFFIX.length));
    return taskId === undefined ? undefined : { endpoint: 'content', taskId };
  }
  return undefined;
}
