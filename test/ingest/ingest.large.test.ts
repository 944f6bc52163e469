// Large manifests go through the worker-thread reader (over 8 MiB), and an unchanged manifest is not
// read again on a restart; both as a user runs them: the CLI as a child process, a real journal.
import { appendFileSync, writeFileSync } from 'node:fs';
import { expect, test } from 'vitest';
import { WORKER_THRESHOLD_BYTES } from '../../src/ingest/scan-compact.js';
import { BUILT, runCli, stdoutJson } from '../e2e/helpers/cli.js';
import { readJournal } from '../e2e/helpers/journal.js';
import { workspace } from '../e2e/helpers/workspace.js';

const ROWS = 70_000;

function row(i: number, id = `row-${i}`): string {
  return `${JSON.stringify({ id, kind: 'chat', model: 'chat-small', max_tokens: 8, messages: [{ role: 'user', content: `Tell me one short fact about the number ${i}, please.` }] })}\n`;
}

function manifest(rows: number, patch: (i: number) => string | undefined = () => undefined): string {
  let text = '';
  for (let i = 0; i < rows; i++) text += patch(i) ?? row(i);
  return text;
}

test.skipIf(!BUILT)('a manifest over the worker threshold: errors named with their lines, then ingested, then skipped when unchanged', async () => {
  const ws = workspace();
  const file = ws.path('big.jsonl');
  const broken = manifest(ROWS, (i) => (i === 50_000 ? row(i, 'row-10') : i === 60_000 ? '{"id": "bad", "kind": "chat"\n' : undefined));
  expect(Buffer.byteLength(broken)).toBeGreaterThan(WORKER_THRESHOLD_BYTES);
  writeFileSync(file, broken);

  const refused = await runCli(['run', file, '--ingest-only', '--state', ws.state, '--json']);
  expect(refused.code).toBe(2);
  expect(refused.stderr).toContain(`${file}:50001 row 'row-10'`);
  expect(refused.stderr).toContain('(first on line 11)');
  expect(refused.stderr).toContain(`${file}:60001`);
  expect(refused.stderr).toMatch(/nothing was sent/);
  expect(readJournal(ws.state).items).toHaveLength(0);

  writeFileSync(file, manifest(ROWS));
  const first = await runCli(['run', file, '--ingest-only', '--state', ws.state, '--json']);
  expect(first.code).toBe(0);
  expect(stdoutJson(first).ingest).toMatchObject({ rows: ROWS, inserted: ROWS, unchanged: 0 });
  const items = readJournal(ws.state).items;
  expect(items).toHaveLength(ROWS);
  expect(items[ROWS - 1]).toMatchObject({ id: `row-${ROWS - 1}`, state: 'pending', sourceLine: ROWS });

  const again = await runCli(['run', file, '--ingest-only', '--state', ws.state, '--json']);
  expect(stdoutJson(again).ingest).toMatchObject({ rows: ROWS, inserted: 0, unchanged: ROWS });

  appendFileSync(file, row(ROWS) + row(ROWS + 1));
  const appended = await runCli(['run', file, '--ingest-only', '--state', ws.state, '--json']);
  expect(stdoutJson(appended).ingest).toMatchObject({ inserted: 2, unchanged: ROWS });
  expect(readJournal(ws.state).items).toHaveLength(ROWS + 2);
}, 60_000);
