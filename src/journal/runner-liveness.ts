// Whether the runner named by a journal's lock row is alive: one pure rule shared by the lock
// (may this run take over?) and `status` (what to tell the operator).

/** What the lock row says about its runner. */
export interface RunnerRecord {
  pid: number;
  host: string;
  heartbeatAt: number;
  /** The process's identity when it took the lock (boot id and start time); null when unknown. */
  processStart: string | null;
}

export interface RunnerLiveness {
  alive: boolean;
  heartbeatAgeMs: number;
  /** Why: on this host the pid decides; on another host only the heartbeat can. */
  basis: 'pid-alive' | 'pid-gone' | 'heartbeat-fresh' | 'heartbeat-stale';
}

export interface LivenessFacts {
  now: number;
  thisHost: string;
  staleAfterMs: number;
  /** Only asked on the runner's own host: is its pid alive and still the same process? */
  pidAlive: (pid: number, processStart: string | null) => boolean;
}

/**
 * On the runner's own host its process decides, whatever the heartbeat says: a stopped (SIGSTOP) or
 * starved runner misses beats but is alive, and taking over from it would let two runners write the
 * same rows. On another host the pid means nothing here, so only a stale heartbeat says it is gone.
 */
export function judgeRunner(record: RunnerRecord, facts: LivenessFacts): RunnerLiveness {
  const heartbeatAgeMs = Math.max(0, facts.now - record.heartbeatAt);
  if (record.host === facts.thisHost) {
    const alive = facts.pidAlive(record.pid, record.processStart);
    return { alive, heartbeatAgeMs, basis: alive ? 'pid-alive' : 'pid-gone' };
  }
  const fresh = heartbeatAgeMs < facts.staleAfterMs;
  return { alive: fresh, heartbeatAgeMs, basis: fresh ? 'heartbeat-fresh' : 'heartbeat-stale' };
}

/** "3 min ago", "1 s ago": the age of a heartbeat for an operator. */
export function describeAge(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 120) return `${s} s ago`;
  const m = Math.round(s / 60);
  if (m < 120) return `${m} min ago`;
  return `${Math.round(m / 60)} h ago`;
}
