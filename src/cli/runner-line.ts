// How `status` describes the journal's runner: the lock's own liveness verdict, in words and in JSON.
import { describeAge, type RunnerLiveness } from '../journal/index.js';

export type JudgedHolder = { pid: number; host: string; heartbeatAt: number } & RunnerLiveness;

export function runnerJson(holder: JudgedHolder | undefined): Record<string, unknown> | null {
  if (!holder) return null;
  return {
    pid: holder.pid, host: holder.host, heartbeatAt: holder.heartbeatAt,
    alive: holder.alive, heartbeat_age_s: Math.round(holder.heartbeatAgeMs / 1000),
  };
}

export function runnerLine(holder: JudgedHolder | undefined): string | undefined {
  if (!holder) return undefined;
  const age = describeAge(holder.heartbeatAgeMs);
  return holder.alive
    ? `runner pid ${holder.pid} on ${holder.host}: alive (heartbeat ${age})`
    : `no live runner: pid ${holder.pid} on ${holder.host} is gone (last heartbeat ${age}); the next run takes over`;
}
