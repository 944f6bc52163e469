// How busy the whole host was during a run (every process, other users' included: the machine is
// shared): the share of all cores' time not idle, from /proc/stat, and the 1-minute load average.
import { readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';

/** A snapshot of the host's CPU counters (jiffies) and load. */
export function hostCpu() {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  const idle = fields[3] + (fields[4] ?? 0); // idle + iowait
  return { total: fields.reduce((a, b) => a + b, 0), idle, load1: loadavg()[0] };
}

/** Share of the cores' time busy between two snapshots (0..1), and the load at the end. */
export function hostBusy(before, after) {
  const total = after.total - before.total;
  return {
    busy: total > 0 ? +(1 - (after.idle - before.idle) / total).toFixed(3) : null,
    load1: +after.load1.toFixed(2),
  };
}

const TICKS_PER_S = 100; // USER_HZ on Linux

function procTimes(pid) {
  // Fields after the command's closing parenthesis: state is [0], utime [11], stime [12], cutime [13], cstime [14].
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { ppid: Number(f[1]), self: Number(f[11]) + Number(f[12]), children: Number(f[13]) + Number(f[14]) };
}

/**
 * CPU seconds used so far by the PostgreSQL server whose postmaster is `pid`: its live processes plus
 * the ones it has reaped (backends that ended). Every database's sessions count, not only gbatch's.
 * null when /proc does not show the server (another host, another container).
 */
export function postgresCpuSeconds(pid) {
  try {
    let ticks = 0;
    const master = procTimes(pid);
    ticks += master.self + master.children;
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const p = procTimes(entry);
        if (p.ppid === pid) ticks += p.self;
      } catch {
        // ended meanwhile
      }
    }
    return ticks / TICKS_PER_S;
  } catch {
    return null;
  }
}
