// docs/reference.md and docs/scheduling.md print the exit-code table of src/core/exit-codes.ts word for
// word; a change to either side fails here, and the expected table is in the failure's diff.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { EXIT_CODE_TABLE, precedenceText } from '../../../src/core/exit-codes.js';
import { ROOT } from '../../helpers/workspace.js';
import { exitCodesMarkdown } from '../../helpers/exit-codes-markdown.js';

/** The text of a `## ` section, up to the next one. */
function section(file: string, heading: string): string {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const start = text.indexOf(`\n${heading}\n`);
  expect(start, `${file}: ${heading}`).toBeGreaterThan(0);
  const end = text.indexOf('\n## ', start + 1);
  return text.slice(start, end < 0 ? undefined : end);
}

/** The table's lines as found in the section: from its header to the first line that is not a row. */
function tableOf(text: string): string {
  const lines = text.split('\n');
  const first = lines.findIndex((l) => l.startsWith('| code |'));
  expect(first).toBeGreaterThan(0);
  const rows = lines.slice(first);
  const last = rows.findIndex((l) => !l.startsWith('|'));
  return rows.slice(0, last < 0 ? undefined : last).join('\n');
}

/** Every "exit N" / "exits N" the section names is a code of the table. */
function namedCodes(text: string): number[] {
  return [...text.matchAll(/\bexits? (\d+)/g)].map((m) => Number(m[1]));
}

const CODES = EXIT_CODE_TABLE.map((r) => r.code);

it('docs/reference.md prints the exit-code table and its precedence', () => {
  const text = section('docs/reference.md', '## Exit codes');
  expect(tableOf(text)).toBe(exitCodesMarkdown());
  expect(text).toContain(`When several apply: ${precedenceText()}.`);
  for (const code of namedCodes(text)) expect(CODES).toContain(code);
});

it('docs/scheduling.md prints the same table for its nightly job', () => {
  const text = section('docs/scheduling.md', '## 6. What each exit code means, and what to do');
  expect(tableOf(text)).toBe(exitCodesMarkdown('jobs/nightly.json'));
  expect(text).toContain(`the most urgent wins: ${precedenceText()}.`);
  for (const code of namedCodes(text)) expect(CODES).toContain(code);
});
