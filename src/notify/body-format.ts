// How notification bodies write money and time, and their last step through the redactor. Pure.
import type { Redactor } from '../gateway/redact.js';

export type NotificationBody = Record<string, unknown> & {
  text: string;
  event: 'run-ended' | 'budget-threshold' | 'budget-reserved-threshold';
};

/** Through JSON and the redactor and back: what is sent is exactly what was checked. */
export function finish(body: NotificationBody, redact: Redactor): NotificationBody {
  return JSON.parse(redact(JSON.stringify(body))) as NotificationBody;
}

export function dollars(usd: number): string {
  return `$${usd.toFixed(2)}`;
}

export function percent(part: number, whole: number): string {
  return whole === 0 ? 'n/a' : `${round1((part / whole) * 100)}%`;
}

export function round1(x: number): number {
  return Math.round(x * 10) / 10;
}

export function duration(seconds: number): string {
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  return h > 0 ? `${h}h ${m}m` : m > 0 ? `${m}m ${s}s` : `${s}s`;
}
