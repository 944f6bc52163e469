// The gbatch command line: dispatches to one module per command, loaded on demand.
import { EXIT_CODE, EXIT_CODE_TABLE } from '../core/exit-codes.js';
import { printable } from '../core/printable.js';
import { knownErrorExit } from '../api/error-exit.js';

// bin/gbatch.js prints an internal error's stack through it (the stack's message may quote outside text).
export { printableBlock } from '../core/printable.js';

export type CommandRunner = (argv: string[]) => Promise<number>;

const COMMANDS: Record<string, { summary: string; load: () => Promise<{ run: CommandRunner }> }> = {
  plan: {
    summary: 'validate a manifest and estimate its cost; sends nothing',
    load: () => import('./commands/plan.js'),
  },
  run: { summary: 'submit, poll, download and settle a job (resumable)', load: () => import('./commands/run.js') },
  status: {
    summary: 'counts per state, spend vs budget, what needs attention',
    load: () => import('./commands/status.js'),
  },
  report: {
    summary: 'estimate vs actual per row, per model and resolution, and in total',
    load: () => import('./commands/report.js'),
  },
  jobs: {
    summary: 'every job of a journal (state/ or a database): standing, rows, spend against budget, last activity',
    load: () => import('./commands/jobs.js'),
  },
  models: {
    summary:
      "the models a manifest may name: the pricing table's and the gateway's, with video resolutions and durations",
    load: () => import('./commands/models.js'),
  },
  resolve: {
    summary: "the operator's decision for an uncertain item (or all of them)",
    load: () => import('./commands/resolve.js'),
  },
  retry: {
    summary: 'send failed, rejected or cancelled items again, as new attempts',
    load: () => import('./commands/retry.js'),
  },
  forget: {
    summary: "remove orphaned items (in none of the job's manifests) that were never sent",
    load: () => import('./commands/forget.js'),
  },
  cancel: {
    summary: 'stop a job for good: nothing more is sent; pending and deferred items are cancelled',
    load: () => import('./commands/cancel.js'),
  },
  journal: {
    summary: 'journal upkeep: `journal migrate` creates or upgrades the schema',
    load: () => import('./commands/journal.js'),
  },
  history: {
    summary: 'the cost history (billed vs estimated per model) plan forecasts from; `history import` merges another',
    load: () => import('./commands/history.js'),
  },
  serve: {
    summary: 'serve the OpenAI Batch API (files, batches) in front of the gateway',
    load: () => import('./commands/serve.js'),
  },
  ui: {
    summary: 'serve a dashboard of every job (figures, runners, rows; actions with --allow-actions)',
    load: () => import('./commands/ui.js'),
  },
  sim: { summary: 'serve the embedded gateway simulator', load: () => import('./commands/sim.js') },
  demo: {
    summary: 'run the demo job against an embedded simulator (npm start)',
    load: () => import('./commands/demo.js'),
  },
};

export function usage(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((c) => c.length));
  const lines = Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`);
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
  const command = COMMANDS[name];
  if (!command) {
    process.stderr.write(`gbatch: unknown command '${printable(name)}'\n\n${usage()}\n`);
    return EXIT_CODE.usage;
  }
  const module = await command.load();
  try {
    return await module.run(rest);
  } catch (err) {
    const known = knownErrorExit(err);
    if (!known) throw err;
    process.stderr.write(`gbatch ${name}: ${known.line}\n`);
    return known.exitCode;
  }
}
