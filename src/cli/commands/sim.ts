// `gbatch sim`: serves the embedded gateway simulator until SIGINT or SIGTERM.

import { EXIT_CODES } from '../../core/command-exit-codes.js';
import { UsageError } from '../../job/options.js';
import { helpText } from '../help-text.js';
import { startSimulator } from '../../sim/index.js';
import { SIM_OPTIONS, simOptionsFromArgs } from '../../sim/cli-options.js';

export async function run(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = simOptionsFromArgs(argv);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    process.stderr.write(`gbatch sim: ${err.message}\n`);
    return 2;
  }
  if (parsed.help) {
    process.stdout.write(`${helpText('sim', '[options]', SIM_OPTIONS, EXIT_CODES.sim)}\n`);
    return 0;
  }
  let sim;
  try {
    sim = await startSimulator(parsed.options);
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    const reason = e.code === 'EADDRINUSE' ? `port ${parsed.options.port} is already in use (try --port 0)` : e.message;
    process.stderr.write(`gbatch sim: cannot start: ${reason}\n`);
    return e instanceof RangeError ? 2 : 1;
  }
  const stop = new Promise<string>((resolve) => {
    process.once('SIGINT', () => resolve('SIGINT'));
    process.once('SIGTERM', () => resolve('SIGTERM'));
  });
  process.stdout.write(`gbatch sim listening on ${sim.baseUrl}\n`);
  const accounts = parsed.options.accounts ?? [];
  process.stderr.write(
    `gbatch sim: ${accounts.map((a, i) => `acct-${i + 1} ${a.balanceUsd} USD`).join(', ')}; ` +
      `tasks take ${parsed.options.taskSeconds} s; shape ${parsed.options.shape}; seed ${parsed.options.seed}; ` +
      `ledger at ${sim.origin}/__sim/ledger; Ctrl-C stops\n`,
  );
  const signal = await stop;
  await sim.close();
  process.stderr.write(`gbatch sim: stopped on ${signal}\n`);
  return 0;
}
