// The exit-code table as the docs print it, rendered from src/core/exit-codes.ts: docs/reference.md and
// docs/scheduling.md must carry it word for word (test/system/docs/exit-codes.test.ts).
import { EXIT_CODE_TABLE } from '../../src/core/exit-codes.js';

/** `job` replaces `<job>` in the "what to do" column (the scheduling guide's job file). */
export function exitCodesMarkdown(job = '<job>'): string {
  return [
    '| code | name | meaning at the end of `gbatch run` | what to do |',
    '|---|---|---|---|',
    ...EXIT_CODE_TABLE.map(
      (row) =>
        `| ${row.code} | \`${row.name}\` | ${cell(row.meaning)} | ${cell(row.action.replaceAll('<job>', job))} |`,
    ),
  ].join('\n');
}

function cell(text: string): string {
  return text.replaceAll('|', '\\|');
}
