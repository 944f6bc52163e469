// A program's options for a job, by the flag names of `gbatch run` (as a job file writes them), checked
// by the same table as the command line: a value out of range is the same usage error.
import { parseOptions, UsageError } from '../job/options.js';
import { RUN_OPTIONS } from '../job/run-options.js';
import type { RunFlags } from '../job/run-options.js';

type OptionValue<S> = S extends { type: 'boolean' }
  ? boolean
  : S extends { type: 'number' }
    ? number
    : S extends { type: 'string'; multiple: true }
      ? string[]
      : string;

/** Options a program may set: every flag of `gbatch run` but those about printing (help, json, quiet). */
export type JobOptions = {
  -readonly [K in Exclude<keyof typeof RUN_OPTIONS, 'help' | 'json' | 'quiet'>]?: OptionValue<(typeof RUN_OPTIONS)[K]>;
};

const PRINTING = new Set(['help', 'json', 'quiet']);

export function optionsToFlags(options: JobOptions, where: string): Partial<RunFlags> {
  const argv: string[] = [];
  for (const [key, value] of Object.entries(options) as Array<[string, unknown]>) {
    if (value === undefined) continue;
    if (!(key in RUN_OPTIONS) || PRINTING.has(key))
      throw new UsageError(
        `${where}: unknown option '${key}' (options use the flag names of \`gbatch run\`, e.g. "budget", "poll-interval")`,
      );
    if (typeof value === 'boolean') {
      if (value) argv.push(`--${key}`);
    } else if (Array.isArray(value)) {
      for (const entry of value) argv.push(`--${key}=${String(entry)}`);
    } else {
      argv.push(`--${key}=${String(value)}`);
    }
  }
  let parsed;
  try {
    parsed = parseOptions(RUN_OPTIONS, argv).options;
  } catch (err) {
    throw new UsageError(`${where}: ${(err as Error).message.replace(/`--([a-z-]+)`/, "option '$1'")}`);
  }
  // Only what was given: the job file's options and the defaults fill the rest.
  return Object.fromEntries(
    Object.entries(parsed).filter(([key]) => (options as Record<string, unknown>)[key] !== undefined),
  ) as Partial<RunFlags>;
}
