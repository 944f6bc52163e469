// How `status` describes the journal's runner: the lock's own liveness verdict, in words and in JSON.
import { describeAge, type RunnerLiveness, type RunnerView } from '../journal/index.js';

export type JudgedHolder = { pid: number; host: string; heartbeatAt: number } & RunnerLiveness;

export function runnerJson(holder: JudgedHolder | undefined): Record<string, unknown> | null {
  if (!holder) return null;
  return {
    pid: holder.pid,
    host: holder.host,
    heartbeatAt: holder.heartbeatAt,
    alive: holder.alive,
    heartbeat_age_s: Math.round(holder.heartbeatAgeMs / 1000),
  };
}

export function runnerLine(holder: JudgedHolder | undefined): string | undefined {
  if (!holder) return undefined;
  const age = describeAge(holder.heartbeatAgeMs);
  return holder.alive
    ? `runner pid ${holder.pid} on ${holder.host}: alive (heartbeat ${age})`
    : `no live runner: pid ${holder.pid} on ${holder.host} is gone (last heartbeat ${age}); the next run takes over`;
}

/**
 * A database journal's runners of the job, one line each: the live ones, and the dead ones still holding
 * rows (who takes those over: the live others, or the next run). A dead runner that holds nothing (its
 * rows were taken over, or the job finished) has nothing left to tell: `--json` still lists it.
 */
export function runnersLines(runners: readonly RunnerView[]): string[] {
  const othersLive = runners.some((r) => r.liveness.alive);
  return runners
    .filter((r) => r.liveness.alive || r.rows > 0)
    .map((runner) => {
      const age = describeAge(runner.liveness.heartbeatAgeMs);
      const held = `${runner.rows} row(s) held`;
      return runner.liveness.alive
        ? `runner ${runner.runnerId}: pid ${runner.pid} on ${runner.host}, alive (heartbeat ${age}), ${held}`
        : `runner ${runner.runnerId}: pid ${runner.pid} on ${runner.host}, DEAD (last heartbeat ${age}), ${held}: ` +
            (othersLive ? 'the live runners take them over' : 'the next `gbatch run` takes them over');
    });
}

export function runnerViewJson(runner: RunnerView): Record<string, unknown> {
  return {
    runner_id: runner.runnerId,
    pid: runner.pid,
    host: runner.host,
    started_at: new Date(runner.startedAt).toISOString(),
    heartbeat_at: new Date(runner.heartbeatAt).toISOString(),
    heartbeat_age_s: Math.round(runner.liveness.heartbeatAgeMs / 1000),
    alive: runner.liveness.alive,
    rows: runner.rows,
  };
}
