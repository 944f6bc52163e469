// The job's first submission and last activity, and its video tasks' times to success, read through keys and
// indexes: the log's first `submit` from its start, its newest events from its end (never the whole log).
import type Database from 'better-sqlite3';
import { hasEventLog } from './event-log.js';

/** Events read from the log's end for its last time: a commit's time is taken a little before another's may land. */
const TAIL = 1000;

export function activity(db: Database.Database): { firstAt: number | null; lastAt: number | null } {
  const inline = hasEventLog(db) ? 'events_inline' : 'events';
  let firstAt =
    (db.prepare(`SELECT at FROM ${inline} WHERE event = 'submit' ORDER BY seq LIMIT 1`).pluck().get() as
      number | undefined) ?? null;
  let lastAt = db
    .prepare(`SELECT MAX(at) FROM (SELECT at FROM ${inline} ORDER BY seq DESC LIMIT ${TAIL})`)
    .pluck()
    .get() as number | null;
  if (hasEventLog(db)) {
    const codes = db.prepare("SELECT code FROM event_kinds WHERE event = 'submit'").pluck().all() as number[];
    if (firstAt === null && codes.length > 0)
      firstAt =
        (db
          .prepare(`SELECT at FROM event_log WHERE kind IN (${codes.map(() => '?').join(', ')}) ORDER BY seq LIMIT 1`)
          .pluck()
          .get(...codes) as number | undefined) ?? null;
    const logged = db
      .prepare(`SELECT MAX(at) FROM (SELECT at FROM event_log WHERE kind <> 0 ORDER BY seq DESC LIMIT ${TAIL})`)
      .pluck()
      .get() as number | null;
    if (logged !== null) lastAt = Math.max(lastAt ?? logged, logged);
  }
  // Nothing sent: no activity to date.
  if (firstAt === null) return { firstAt: null, lastAt: null };
  return { firstAt, lastAt: Math.max(lastAt ?? firstAt, firstAt) };
}

/** How many video tasks succeeded, and the median of their submission-to-success times (nearest rank). */
export function videoDurations(db: Database.Database): { count: number; medianMs: number | null } {
  const count = db.prepare('SELECT COUNT(*) FROM video_durations').pluck().get() as number;
  if (count === 0) return { count, medianMs: null };
  const medianMs = db
    .prepare('SELECT ms FROM video_durations ORDER BY ms LIMIT 1 OFFSET ?')
    .pluck()
    .get(Math.ceil(count / 2) - 1) as number;
  return { count, medianMs };
}

/** The time of each row's last submission, for the ids given (absent: never sent), as its row keeps it. */
export function submittedTimes(db: Database.Database, ids: readonly string[]): Map<string, number> {
  const found = new Map<string, number>();
  const read = db.prepare('SELECT submitted_at FROM items WHERE id = ?').pluck();
  for (const id of ids) {
    const at = read.get(id) as number | null | undefined;
    if (typeof at === 'number') found.set(id, at);
  }
  return found;
}
