// Shared by the simulator tests: a manual clock, authenticated fetch helpers and a raw HTTP GET that
// reports exactly how many bytes arrived before the connection ended.

import { request } from 'node:http';
import { ManualClock } from '../../src/core/clock.js';

export const START = 1_767_225_600_000; // 2026-01-01T00:00:00Z, on a minute boundary

/** The simulator tests' clock: core's ManualClock, started on a minute boundary. */
export function simClock(): ManualClock {
  return new ManualClock(START);
}

export const KEY = 'sk-test-alpha';
export const OTHER_KEY = 'sk-test-beta';

export function auth(key: string): Record<string, string> {
  return { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
}

export async function post(baseUrl: string, path: string, key: string | undefined, body: unknown): Promise<Response> {
  return fetch(`${baseUrl}${path}`, {
    method: 'POST',
    headers: key === undefined ? { 'content-type': 'application/json' } : auth(key),
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

export async function get(baseUrl: string, path: string, key?: string): Promise<Response> {
  return fetch(`${baseUrl}${path}`, { headers: key === undefined ? {} : auth(key) });
}

export async function submit(
  baseUrl: string,
  key: string,
  body: Record<string, unknown>,
): Promise<{ status: number; json: any }> {
  const res = await post(baseUrl, '/video/generations', key, body);
  return { status: res.status, json: await res.json() };
}

export async function poll(baseUrl: string, key: string, taskId: string): Promise<{ status: number; json: any }> {
  const res = await get(baseUrl, `/video/generations/${taskId}`, key);
  return { status: res.status, json: await res.json() };
}

export interface RawResult {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  bytes: Buffer;
  /** false when the connection ended before the response did. */
  complete: boolean;
}

/** GET with node:http, collecting the body until it ends or the socket is cut. */
export function rawGet(url: string, key: string): Promise<RawResult> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { authorization: `Bearer ${key}` }, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      let settled = false;
      const done = (complete: boolean): void => {
        if (settled) return;
        settled = true;
        resolve({ status: res.statusCode ?? 0, headers: res.headers, bytes: Buffer.concat(chunks), complete });
      };
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => done(res.complete));
      res.on('aborted', () => done(false));
      res.on('error', () => done(false));
      res.on('close', () => done(res.complete));
    });
    req.on('error', reject);
    req.end();
  });
}

/** POST with node:http; resolves 'dropped' when the socket closes with no answer at all. */
export function rawPost(url: string, key: string, body: unknown): Promise<{ status: number } | 'dropped'> {
  return new Promise((resolve) => {
    const text = JSON.stringify(body);
    const req = request(
      url,
      {
        method: 'POST',
        agent: false,
        headers: {
          authorization: `Bearer ${key}`,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(text),
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0 }));
      },
    );
    req.on('error', () => resolve('dropped'));
    req.end(text);
  });
}

/** Parses `data:` frames of an event stream. */
export function sseData(text: string): string[] {
  return text
    .split('\n\n')
    .filter((f) => f.trim() !== '')
    .map((frame) => {
      const line = frame.split('\n').find((l) => l.startsWith('data: '));
      return line ? line.slice(6) : '';
    });
}
