// A process's identity on this host: its pid alone is reused after it exits, so the lock also records
// the boot it runs in and its start time (Linux /proc/<pid>/stat field 22, clock ticks since boot).
import { readFileSync } from 'node:fs';

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/** "<boot id>/<start ticks>" of a running process, or null where /proc cannot tell (not Linux, gone). */
export function processStartOf(pid: number): string | null {
  const stat = readText(`/proc/${pid}/stat`);
  if (stat === undefined) return null;
  // Field 2 (the command name) is in parentheses and may hold spaces: count fields after its last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const startTicks = fields[22 - 3];
  if (startTicks === undefined || !/^\d+$/.test(startTicks)) return null;
  const bootId = readText('/proc/sys/kernel/random/boot_id')?.trim() ?? '';
  return `${bootId}/${startTicks}`;
}

/** Is `pid` alive on this host and, when its identity was recorded, still that same process? */
export function pidAlive(pid: number, processStart: string | null): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  if (processStart === null) return true;
  const now = processStartOf(pid);
  return now === null || now === processStart;
}
