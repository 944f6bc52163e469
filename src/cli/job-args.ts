// A job from `plan`'s or `run`'s command line.
import { resolveJob, type ResolvedJob } from '../job/job.js';
import { parseOptions, UsageError, type OptionTable } from '../job/options.js';
import { PLAN_OPTIONS, RUN_OPTIONS, type RunFlags } from '../job/run-options.js';
import { EXIT_CODES } from '../core/command-exit-codes.js';
import { helpText } from './help-text.js';

/**
 * The argument handling `plan` and `run` share: each its own option table and `--help`, one job or
 * manifest. Undefined when help was printed (the command exits 0).
 */
export function jobFromArgs(command: 'plan' | 'run', argv: string[], now: Date): ResolvedJob | undefined {
  const table: OptionTable = command === 'plan' ? PLAN_OPTIONS : RUN_OPTIONS;
  let parsed;
  try {
    parsed = parseOptions(table, argv);
  } catch (err) {
    throw runFlagGivenToPlan(command, argv) ?? err;
  }
  // Plan's table is a subset of run's: what it parsed are run flags.
  const options = parsed.options as Partial<RunFlags>;
  const { positionals } = parsed;
  if (options.help) {
    process.stdout.write(
      `${helpText(command, '<job.json | manifest.csv | manifest.jsonl> [options]', table, EXIT_CODES[command])}\n`,
    );
    return undefined;
  }
  if (positionals.length > 1)
    throw new UsageError(`Expected one job or manifest, got ${positionals.length}: ${positionals.join(' ')}`);
  return resolveJob(positionals[0], options, now);
}

/** `plan --concurrency 4`: say that the flag belongs to `run`, not just that it is unknown. */
function runFlagGivenToPlan(command: 'plan' | 'run', argv: string[]): UsageError | undefined {
  if (command !== 'plan') return undefined;
  for (const arg of argv) {
    const name = /^--([a-z-]+)/.exec(arg)?.[1];
    if (name !== undefined && name in RUN_OPTIONS && !(name in PLAN_OPTIONS)) {
      return new UsageError(
        `\`--${name}\` is an option of \`gbatch run\`; plan does not use it (see gbatch plan --help)`,
      );
    }
  }
  return undefined;
}
