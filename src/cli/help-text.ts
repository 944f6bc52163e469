// A command's `--help`: drawn from its option table (src/job/options.ts) and its exit codes.
import type { OptionTable } from '../job/options.js';
import { exitCodesText, type ExitCodeList } from '../core/command-exit-codes.js';

/** A command's help: its synopsis, every flag of its table, and (when given) what its exit codes mean. */
export function helpText(command: string, synopsis: string, table: OptionTable, exitCodes?: ExitCodeList): string {
  const rows = Object.entries(table).map(([name, spec]) => {
    const flag = `${spec.short ? `-${spec.short}, ` : ''}--${name}${spec.type === 'boolean' ? '' : ' <value>'}`;
    const def =
      'default' in spec && spec.default !== undefined && spec.default !== false ? ` (default: ${spec.default})` : '';
    return `  ${flag.padEnd(28)} ${spec.help}${def}`;
  });
  const lines = [`Usage: gbatch ${command} ${synopsis}`, '', 'Options:', ...rows];
  if (exitCodes) lines.push('', exitCodesText(exitCodes));
  return lines.join('\n');
}
