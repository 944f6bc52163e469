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
    sim = await startSimulator({ ...parsed.options, log: (line) => process.stderr.write(`gbatch sim: ${line}\n`) });
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
    `gbatch sim: ${accounts.map((a) => `${sim.account(a.key).name} ${sim.account(a.key).balanceUsd} USD`).join(', ')}; ` +
      `tasks take ${parsed.options.taskSeconds} s; shape ${parsed.options.shape}; seed ${parsed.options.seed}; ` +
      `ledger at ${sim.origin}/__sim/ledger; Ctrl-C stops\n`,
  );
  if (parsed.options.admin)
    process.stderr.write(
      `gbatch sim: faults at ${sim.origin}/__sim/faults (GET, or POST a JSON object of fault flags; loopback, bearer key)\n`,
    );
  if (sim.state)
    process.stderr.write(
      sim.state.restoredTasks > 0 || sim.ledger.requests.length > 0
        ? `gbatch sim: state ${sim.state.file}: restored ${sim.state.restoredTasks} task(s) and ${sim.ledger.requests.length} request(s)\n`
        : `gbatch sim: state ${sim.state.file}: new\n`,
    );
  const signal = await stop;
  await sim.close();
  process.stderr.write(`gbatch sim: stopped on ${signal}\n`);
  return 0;
}
