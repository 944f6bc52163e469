// A pid that certainly names no process now: a child that has exited (lock and lease tests plant it as
// a runner that is gone).
import { spawn } from 'node:child_process';

export async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
  const pid = child.pid!;
  await new Promise<void>((resolve, reject) => {
    child.once('exit', () => resolve());
    child.once('error', reject);
  });
  return pid;
}
