// A long-lived server command (`gbatch serve`, `gbatch ui`): start, say where it listens, stop at a signal.
import { ConfigError } from '../core/config-error.js';
import { printable } from '../core/printable.js';
import { UsageError } from '../job/options.js';

export interface RunningServer {
  url: string;
  close(): Promise<void>;
}

/**
 * Runs a server until SIGINT or SIGTERM: 0 once stopped, 1 when it could not start (a busy port, an
 * unreadable folder); a usage or configuration error (a refused --data bucket) still ends it with exit 2.
 */
export async function serveUntilSignal(
  command: 'serve' | 'ui',
  port: number,
  start: () => Promise<RunningServer>,
  stopping = '',
): Promise<number> {
  let server: RunningServer;
  try {
    server = await start();
  } catch (err) {
    if (err instanceof UsageError || err instanceof ConfigError) throw err;
    const e = err as NodeJS.ErrnoException;
    const reason = e.code === 'EADDRINUSE' ? `port ${port} is already in use (try --port 0)` : e.message;
    process.stderr.write(`gbatch ${command}: cannot start: ${printable(reason)}\n`);
    return 1;
  }
  process.stdout.write(`gbatch ${command} listening on ${server.url}\n`);
  const signal = await new Promise<string>((resolve) => {
    process.once('SIGINT', () => resolve('SIGINT'));
    process.once('SIGTERM', () => resolve('SIGTERM'));
  });
  process.stderr.write(`gbatch ${command}: ${signal}: stopping${stopping}\n`);
  await server.close();
  return 0;
}
