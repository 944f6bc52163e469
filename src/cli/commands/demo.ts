// `npm start`: the demo job end to end against an embedded simulator, so a new user sees the whole product.
import { rmSync } from 'node:fs';
import { isAbsolute, relative } from 'node:path';
import { packageFile } from '../../core/package-files.js';
import { startSimulator } from '../../sim/index.js';
import { EXIT_CODES } from '../../core/command-exit-codes.js';
import { type OptionTable } from '../../job/options.js';
import { helpText } from '../help-text.js';
import { run as runCommand } from './run.js';
import { jobCommand, runCommandOf } from '../../core/job-address.js';
import { startedJobAddress } from '../../job/advice.js';

/** Demo's own flag; any other option is passed to the demo's `gbatch run`. */
export const DEMO_OPTIONS = {
  help: {
    type: 'boolean',
    short: 'h',
    help: 'show this help (other options are passed to `gbatch run`, see gbatch run --help)',
  },
} as const satisfies OptionTable;

const DEMO_KEY = 'sk-sim-demo';
const DEMO_STATE = 'state/demo.db';

/** The demo job shipped with the package, named as short as it can be from where the user stands. */
function demoJob(): string {
  const job = packageFile('jobs/demo.json');
  const near = relative(process.cwd(), job);
  return near.startsWith('..') || isAbsolute(near) ? job : near;
}

export async function run(argv: string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(`${helpText('demo', '[run options]', DEMO_OPTIONS, EXIT_CODES.demo)}\n`);
    return 0;
  }
  const sim = await startSimulator({
    accounts: [{ key: DEMO_KEY, balanceUsd: 100 }],
    taskSeconds: 3,
    tokenNoise: 0.08,
    seed: 7,
  });
  process.stderr.write(`[demo] embedded gateway simulator on ${sim.baseUrl}\n`);
  // The demo starts from a clean journal each time: its simulator, and so its task ids, are new too.
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${DEMO_STATE}${suffix}`, { force: true });
  const saved = {
    url: process.env.GATEWAY_BASE_URL,
    key: process.env.GATEWAY_API_KEY,
    keyFile: process.env.GATEWAY_API_KEY_FILE,
  };
  process.env.GATEWAY_BASE_URL = sim.baseUrl;
  process.env.GATEWAY_API_KEY = DEMO_KEY;
  delete process.env.GATEWAY_API_KEY_FILE; // the demo's key, not the operator's
  const job = demoJob();
  try {
    const code = await runCommand([job, '--state', DEMO_STATE, ...argv]);
    const address = startedJobAddress(job, DEMO_STATE, undefined, true);
    process.stderr.write(
      [
        '',
        `[demo] exit code ${code}. The journal is ${DEMO_STATE}; outputs are in out/demo/.`,
        `[demo] try: npx ${jobCommand(address, 'report', '--format', 'json')}`,
        `[demo]      npx gbatch sim --port 8080   (then GATEWAY_BASE_URL=http://127.0.0.1:8080/v1 GATEWAY_API_KEY=${DEMO_KEY} npx ${runCommandOf(address)})`,
        '',
      ].join('\n'),
    );
    return code;
  } finally {
    restore('GATEWAY_BASE_URL', saved.url);
    restore('GATEWAY_API_KEY', saved.key);
    restore('GATEWAY_API_KEY_FILE', saved.keyFile);
    await sim.close();
  }
}

function restore(name: string, value: string | undefined): void {
  if (value === undefined) delete process.env[name];
  else process.env[name] = value;
}
