// Puts rows of a finished journal back into the states a killed runner leaves behind, by plain SQL,
// the way the runner itself would have left them (reservation held, nothing settled, no output).
import { openSqliteFile } from '../journal-raw.js';
import { hostname } from 'node:os';

export type MidRunState = 'submitting' | 'submitted' | 'running' | 'succeeded';

const NOT_SENT = `task_id = NULL, actual_usd = NULL, total_tokens = NULL, final_resolution = NULL,
  gateway_charge_usd = NULL, result_url = NULL, response = NULL, response_status = NULL, request_id = NULL`;
const NOT_SETTLED = `actual_usd = NULL, total_tokens = NULL, final_resolution = NULL, gateway_charge_usd = NULL, result_url = NULL`;
const NO_OUTPUT = 'output_path = NULL, sha256 = NULL, bytes = NULL';

const RESETS: Record<MidRunState, string> = {
  // The intent is durable, the answer never arrived: nothing known of the request's fate.
  submitting: `${NOT_SENT}, ${NO_OUTPUT}, reserved_usd = estimate_usd`,
  // The task id is known; the task has not been seen to end.
  submitted: `${NOT_SETTLED}, ${NO_OUTPUT}, reserved_usd = estimate_usd`,
  running: `${NOT_SETTLED}, ${NO_OUTPUT}, reserved_usd = estimate_usd`,
  // Settled upstream; the output is not on disk (video) or not yet in results.jsonl (text).
  succeeded: NO_OUTPUT,
};

export function seedStates(statePath: string, states: Readonly<Record<string, MidRunState>>): void {
  const db = openSqliteFile(statePath);
  try {
    db.transaction(() => {
      for (const [id, state] of Object.entries(states)) {
        const result = db.prepare(`UPDATE items SET state = ?, ${RESETS[state]} WHERE id = ?`).run(state, id);
        if (result.changes !== 1) throw new Error(`seedStates: no item '${id}'`);
      }
    })();
  } finally {
    db.close();
  }
}

/** The lock row of a runner that was killed: a fresh heartbeat, but its pid is gone. */
export function leaveLockOf(statePath: string, deadPid: number): void {
  const db = openSqliteFile(statePath);
  try {
    const now = Date.now();
    db.prepare(
      `INSERT INTO runner_lock (id, pid, host, token, started_at, heartbeat_at) VALUES (1, ?, ?, 'killed-runner', ?, ?)
      ON CONFLICT (id) DO UPDATE SET pid = excluded.pid, host = excluded.host, token = excluded.token, heartbeat_at = excluded.heartbeat_at`,
    ).run(deadPid, hostname(), now, now);
  } finally {
    db.close();
  }
}
