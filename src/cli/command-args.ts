// What every command does first: parse its flags against its table and answer `--help` from that table.
import { EXIT_CODES } from '../core/command-exit-codes.js';
import { parseOptions, UsageError, type OptionTable, type Parsed } from '../job/options.js';
import { helpText } from './help-text.js';

export interface CommandUsage {
  /** The synopsis after `gbatch <command>`. */
  synopsis: string;
  /** Text printed after the flags and exit codes; starts and ends with a newline. */
  about?: string;
  /** The command takes no positionals: one given is a usage error. */
  noArguments?: boolean;
}

/** The command's flags and positionals; undefined when `--help` was printed (the command exits 0). */
function commandArgs<T extends OptionTable>(
  command: keyof typeof EXIT_CODES,
  table: T,
  argv: string[],
  usage: CommandUsage,
): Parsed<T> | undefined {
  const parsed = parseOptions(table, argv);
  if ((parsed.options as { help?: boolean }).help) {
    process.stdout.write(`${helpText(command, usage.synopsis, table, EXIT_CODES[command])}\n${usage.about ?? ''}`);
    return undefined;
  }
  if (usage.noArguments && parsed.positionals.length > 0)
    throw new UsageError(`gbatch ${command} takes no arguments, got \`${parsed.positionals[0]}\``);
  return parsed;
}

/** A command's `run`: its flags parsed and `--help` answered from its table, then `body` with the flags. */
export function commandRunner<T extends OptionTable>(
  command: keyof typeof EXIT_CODES,
  table: T,
  usage: CommandUsage,
  body: (args: Parsed<T>) => Promise<number>,
): (argv: string[]) => Promise<number> {
  return async (argv) => {
    const args = commandArgs(command, table, argv, usage);
    return args ? body(args) : 0;
  };
}
