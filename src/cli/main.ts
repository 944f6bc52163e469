// The gbatch command line: dispatches to one module per command, loaded on demand.
import { EXIT_CODE, EXIT_CODE_TABLE } from '../core/exit-codes.js';
import { printable } from '../core/printable.js';
import { knownErrorExit } from '../api/error-exit.js';

// bin/gbatch.js prints an internal error's stack through it (the stack's message may quote outside text).
export { printableBlock } from '../core/printable.js';

export type CommandRunner = (argv: string[]) => Promise<number>;

/** Each command's summary; its module is ./commands/<name>.js, loaded only when it runs. */
const COMMANDS: Readonly<Record<string, string>> = {
  plan: 'validate a manifest and estimate its cost; sends nothing',
  run: 'submit, poll, download and settle a job (resumable)',
  status: 'counts per state, spend vs budget, what needs attention',
  report: 'estimate vs actual per row, per model and resolution, and in total',
  jobs: 'every job of a journal (state/ or a database): standing, rows, spend against budget, last activity',
  models: "the models a manifest may name: the pricing table's and the gateway's, with video resolutions and durations",
  resolve: "the operator's decision for an uncertain item (or all of them)",
  retry: 'send failed, rejected or cancelled items again, as new attempts',
  forget: "remove orphaned items (in none of the job's manifests) that were never sent",
  cancel: 'stop a job for good: nothing more is sent; pending and deferred items are cancelled',
  journal: 'journal upkeep: `journal migrate` creates or upgrades the schema',
  history: 'the cost history (billed vs estimated per model) plan forecasts from; `history import` merges another',
  serve: 'serve the OpenAI Batch API (files, batches) in front of the gateway',
  ui: 'serve a dashboard of every job (figures, runners, rows; actions with --allow-actions)',
  sim: 'serve the embedded gateway simulator',
  demo: 'run the demo job against an embedded simulator (npm start)',
};

export function usage(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((c) => c.length));
  const lines = Object.entries(COMMANDS).map(([name, summary]) => `  ${name.padEnd(width)}  ${summary}`);
  return [
    'Usage: gbatch <command> [options]',
    '',
    'Commands:',
    ...lines,
    '',
    'Run `gbatch <command> --help` for the options of a command and what its exit codes mean.',
    `Exit codes: ${EXIT_CODE_TABLE.map((row) => `${row.code} ${row.name}`).join(', ')}.`,
    'The gateway is GATEWAY_BASE_URL (or --base-url); the key is read only from GATEWAY_API_KEY, or from the file GATEWAY_API_KEY_FILE names.',
  ].join('\n');
}

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(`${usage()}\n`);
    return name === undefined ? EXIT_CODE.usage : EXIT_CODE.ok;
  }
  if (name === '--version' || name === '-v') {
    process.stdout.write('gbatch 0.1.0\n');
    return EXIT_CODE.ok;
  }
  if (!Object.hasOwn(COMMANDS, name)) {
    process.stderr.write(`gbatch: unknown command '${printable(name)}'\n\n${usage()}\n`);
    return EXIT_CODE.usage;
  }
  const module = (await import(`./commands/${name}.js`)) as { run: CommandRunner };
  try {
    return await module.run(rest);
  } catch (err) {
    const known = knownErrorExit(err);
    if (!known) throw err;
    process.stderr.write(`gbatch ${name}: ${known.line}\n`);
    return known.exitCode;
  }
}
