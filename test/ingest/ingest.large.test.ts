// Large manifests go through the worker-thread reader (8 MiB and more; here the CLI's threshold is
// lowered to 1 MiB, so 10,000 rows take that path), and an unchanged manifest is not read again on a
// restart; both as a user runs them: the CLI as a child process, a real journal.
import { appendFileSync, writeFileSync } from 'node:fs';
import { expect, test } from 'vitest';
import { SCAN_BATCH, MAX_BACKLOG_BATCHES } from '../../src/ingest/scan-protocol.js';
import { BUILT, runCli, scanWorkerEnv, stdoutJson } from '../helpers/cli.js';
import { readJournal } from '../helpers/journal-read.js';
import { workspace } from '../helpers/workspace.js';

const THRESHOLD = 1 << 20;
const ROWS = 10_000;
const DUPLICATE = 5_000;
const BROKEN = 6_000;
const env = scanWorkerEnv(THRESHOLD);

function row(i: number, id = `row-${i}`): string {
  return `${JSON.stringify({ id, kind: 'chat', model: 'chat-small', max_tokens: 8, messages: [{ role: 'user', content: `Tell me one short fact about the number ${i}, please.` }] })}\n`;
}

function manifest(rows: number, patch: (i: number) => string | undefined = () => undefined): string {
  let text = '';
  for (let i = 0; i < rows; i++) text += patch(i) ?? row(i);
  return text;
}

test.skipIf(!BUILT)(
  'a manifest over the worker threshold: errors named with their lines, then ingested, then skipped when unchanged',
  async () => {
    const ws = workspace();
    const file = ws.path('big.jsonl');
    const broken = manifest(ROWS, (i) =>
      i === DUPLICATE ? row(i, 'row-10') : i === BROKEN ? '{"id": "bad", "kind": "chat"\n' : undefined,
    );
    expect(Buffer.byteLength(broken)).toBeGreaterThan(THRESHOLD);
    // More batches than the reader lets wait for the main thread: its back-pressure is used.
    expect(ROWS / SCAN_BATCH).toBeGreaterThan(2 * MAX_BACKLOG_BATCHES);
    writeFileSync(file, broken);

    const refused = await runCli(['run', file, '--ingest-only', '--state', ws.state, '--json'], { env });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`${file}:${DUPLICATE + 1} row 'row-10'`);
    expect(refused.stderr).toContain('(first on line 11)');
    expect(refused.stderr).toContain(`${file}:${BROKEN + 1}`);
    expect(refused.stderr).toMatch(/nothing was sent/);
    expect(readJournal(ws.state).items).toHaveLength(0);

    writeFileSync(file, manifest(ROWS));
    const first = await runCli(['run', file, '--ingest-only', '--state', ws.state, '--json'], { env });
    expect(first.code).toBe(0);
    expect(stdoutJson(first).ingest).toMatchObject({ rows: ROWS, inserted: ROWS, unchanged: 0 });
    const items = readJournal(ws.state).items;
    expect(items).toHaveLength(ROWS);
    expect(items[ROWS - 1]).toMatchObject({ id: `row-${ROWS - 1}`, state: 'pending', sourceLine: ROWS });

    const again = await runCli(['run', file, '--ingest-only', '--state', ws.state, '--json'], { env });
    expect(stdoutJson(again).ingest).toMatchObject({ rows: ROWS, inserted: 0, unchanged: ROWS });

    appendFileSync(file, row(ROWS) + row(ROWS + 1));
    const appended = await runCli(['run', file, '--ingest-only', '--state', ws.state, '--json'], { env });
    expect(stdoutJson(appended).ingest).toMatchObject({ inserted: 2, unchanged: ROWS });
    expect(readJournal(ws.state).items).toHaveLength(ROWS + 2);
  },
  60_000,
);
