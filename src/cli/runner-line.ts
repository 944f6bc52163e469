// How `status` describes the journal's runner: the lock's own liveness verdict, in words and in JSON.
import { describeAge, type RunnerLiveness, type RunnerView } from '../journal/index.js';

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

/** One of a job's runners (a database journal may have several), with the rows it holds. */
export function runnersLine(runner: RunnerView): string {
  const age = describeAge(runner.liveness.heartbeatAgeMs);
  const held = `${runner.rows} row(s) held`;
  return runner.liveness.alive
    ? `runner ${runner.runnerId}: pid ${runner.pid} on ${runner.host}, alive (heartbeat ${age}), ${held}`
    : `runner ${runner.runnerId}: pid ${runner.pid} on ${runner.host}, DEAD (last heartbeat ${age}), ${held}: the others take its rows over`;
}

export function runnerViewJson(runner: RunnerView): Record<string, unknown> {
  return {
    runner_id: runner.runnerId, pid: runner.pid, host: runner.host, started_at: new Date(runner.startedAt).toISOString(),
    heartbeat_at: new Date(runner.heartbeatAt).toISOString(), heartbeat_age_s: Math.round(runner.liveness.heartbeatAgeMs / 1000),
    alive: runner.liveness.alive, rows: runner.rows,
  };
}
