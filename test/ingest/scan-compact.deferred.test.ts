// A large manifest is judged in two threads: the scan worker hands some batches of rows to the main
// thread unjudged. Whichever thread judges a row, the scan must come out as the one-thread scan
// does: the same rows in the same order, the same errors on the same lines, duplicates found across
// the batches of either thread. The worker runs from the bundle, as the CLI runs it.
import { writeFileSync } from 'node:fs';
import { expect, test } from 'vitest';
import { BUILTIN_PRICING } from '../../src/core/pricing.js';
import { scanCompact } from '../../src/ingest/scan-compact.js';
import type { InvalidEntry } from '../../src/ingest/scan-manifests.js';
import { SCAN_BATCH, type CompactRow, type DeferralPolicy } from '../../src/ingest/scan-protocol.js';
import { BUILT } from '../helpers/cli.js';
import { ROOT, workspace } from '../helpers/workspace.js';

const BUNDLED_WORKER = new URL('dist/bundle/scan-worker.js', `file://${ROOT}/`);
const ROWS = SCAN_BATCH * 4 + 500;

/** Data row `i` is on line i + 2 (the header is line 1); the ones listed are broken in some way. */
function csvManifest(special: Record<number, string>): string {
  let text = 'id,kind,model,prompt,max_tokens\n';
  for (let i = 0; i < ROWS; i++) text += special[i] ?? `r${i},chat,chat-small,"Fact number ${i}, please.",16\n`;
  return text;
}

const SPECIAL: Record<number, string> = {
  // Duplicates whose first row is in an early batch and whose repeat lies a batch or more later, so
  // that with 'alternate' one of each pair is judged in the other thread.
  [SCAN_BATCH + 10]: 'r3,chat,chat-small,again,16\n',
  [SCAN_BATCH * 2 + 20]: 'r5,chat,chat-small,again,16\n',
  [SCAN_BATCH * 3 + 30]: `r${SCAN_BATCH + 40},chat,chat-small,again,16\n`,
  [SCAN_BATCH + 50]: 'wide,chat,chat-small,hello,16,extra\n',
  [SCAN_BATCH + 60]: ',chat,chat-small,no id,16\n',
  [SCAN_BATCH + 70]: 'narrow,chat\n',
  [SCAN_BATCH + 80]: 'tokens,chat,chat-small,hello,lots\n',
  [SCAN_BATCH + 90]: 'unpriced,chat,chat-nope,hello,16\n',
  [SCAN_BATCH + 100]: 'multi,chat,chat-small,"line one\nline two",16\n',
  [SCAN_BATCH * 3 + 60]: 'kindless,,chat-small,hello,16\n',
  // A syntax error: reported on its own first line, and the reading goes on after it.
  [SCAN_BATCH * 3 + 100]: 'broken,chat,chat-small,"unclosed,16\n',
};

interface Scan {
  valid: CompactRow[];
  invalid: InvalidEntry[];
  summary: { rows: number; valid: number; invalid: number };
  deferredRows: number;
}

async function scan(
  files: string[],
  options: { useWorker: boolean; deferral?: DeferralPolicy; metaColumns?: string[] },
): Promise<Scan> {
  const valid: CompactRow[] = [];
  const invalid: InvalidEntry[] = [];
  const { deferredRows, ...summary } = await scanCompact(
    files,
    BUILTIN_PRICING,
    {
      valid: (row) => valid.push(row),
      invalid: (entry) => invalid.push(entry),
    },
    { ...options, workerUrl: BUNDLED_WORKER },
  );
  return { valid, invalid, summary, deferredRows };
}

test.skipIf(!BUILT)(
  'with batches judged in the main thread, the scan is the one-thread scan, row for row and error for error',
  async () => {
    const ws = workspace();
    const first = ws.path('first.csv');
    const second = ws.path('second.csv');
    writeFileSync(first, csvManifest(SPECIAL));
    // A second file with its columns in another order: its records must be read under its own header.
    writeFileSync(
      second,
      `max_tokens,prompt,model,kind,id\n${Array.from({ length: SCAN_BATCH + 5 }, (_, i) => `8,"Second ${i}",chat-small,chat,s${i}\n`).join('')}`,
    );
    const files = [first, second];

    const alone = await scan(files, { useWorker: false });
    const split = await scan(files, { useWorker: true, deferral: 'alternate' });

    expect(split.deferredRows).toBeGreaterThan(SCAN_BATCH);
    expect(split.summary).toEqual(alone.summary);
    expect(split.valid).toEqual(alone.valid);
    expect(split.invalid).toEqual(alone.invalid);

    const reasons = (id: string): string[] =>
      alone.invalid.filter((e) => e.id === id).flatMap((e) => e.errors.map((x) => x.reason));
    expect(reasons('r3')).toEqual(["duplicate id 'r3' (first on line 5)"]);
    expect(reasons(`r${SCAN_BATCH + 40}`)).toEqual([
      `duplicate id 'r${SCAN_BATCH + 40}' (first on line ${SCAN_BATCH + 42})`,
    ]);
    expect(alone.invalid.find((e) => e.id === 'wide')?.raw).toBe('wide,chat,chat-small,hello,16,extra');
    expect(alone.valid.find((r) => r.id === 'multi')?.requestJson).toContain('line one\\nline two');
    expect(alone.valid.find((r) => r.id === 's7')).toMatchObject({ file: second, line: 9 });
    expect(alone.summary).toEqual({ rows: ROWS + SCAN_BATCH + 5, valid: ROWS + SCAN_BATCH + 5 - 10, invalid: 10 });
  },
);

test.skipIf(!BUILT)('JSONL lines judged in the main thread come out as in the one-thread scan', async () => {
  const ws = workspace();
  const file = ws.path('m.jsonl');
  const line = (i: number, id = `j${i}`): string =>
    `${JSON.stringify({ id, kind: 'chat', model: 'chat-small', messages: [{ role: 'user', content: `Fact ${i}` }] })}\n`;
  const special: Record<number, string> = {
    0: `\uFEFF${line(0)}`,
    [SCAN_BATCH + 10]: line(SCAN_BATCH + 10, 'j3'),
    [SCAN_BATCH * 2 + 20]: line(SCAN_BATCH * 2 + 20, `j${SCAN_BATCH + 30}`),
    [SCAN_BATCH + 40]: '{"id": "torn", "kind": "chat"\n',
    [SCAN_BATCH + 50]: '\n',
    [SCAN_BATCH + 60]:
      '{"id": "robot", "kind": "chat", "model": "chat-small", "messages": [{"role": "robot", "content": "hi"}]}\n',
    [SCAN_BATCH * 3 + 10]:
      '{"custom_id": "batch-form", "method": "POST", "url": "/v1/responses", "body": {"model": "chat-small", "input": "hi"}}\n',
  };
  writeFileSync(file, Array.from({ length: ROWS }, (_, i) => special[i] ?? line(i)).join(''));

  const alone = await scan([file], { useWorker: false });
  const split = await scan([file], { useWorker: true, deferral: 'alternate' });

  expect(split.deferredRows).toBeGreaterThan(SCAN_BATCH);
  expect(split.summary).toEqual(alone.summary);
  expect(split.valid).toEqual(alone.valid);
  expect(split.invalid).toEqual(alone.invalid);
  expect(alone.invalid.map((e) => e.id ?? `line ${e.line}`)).toEqual([
    'j3',
    `line ${SCAN_BATCH + 41}`,
    'robot',
    `j${SCAN_BATCH + 30}`,
  ]);
  expect(alone.valid.find((r) => r.id === 'batch-form')).toMatchObject({
    kind: 'responses',
    line: SCAN_BATCH * 3 + 11,
  });
});

test.skipIf(!BUILT)(
  "'never' judges every row in the worker; 'adaptive' gives the main thread only what it can take",
  async () => {
    const ws = workspace();
    const file = ws.path('m.csv');
    writeFileSync(file, csvManifest({}));

    const alone = await scan([file], { useWorker: false });
    const never = await scan([file], { useWorker: true, deferral: 'never' });
    const adaptive = await scan([file], { useWorker: true, deferral: 'adaptive' });

    expect(never.deferredRows).toBe(0);
    expect(never.valid).toEqual(alone.valid);
    expect(adaptive.valid).toEqual(alone.valid);
    expect(adaptive.summary).toEqual({ rows: ROWS, valid: ROWS, invalid: 0 });
  },
);

test.skipIf(!BUILT)(
  'metadata columns (--meta-columns and meta.*) are read the same in either thread, and never enter the request',
  async () => {
    const ws = workspace();
    const file = ws.path('meta.csv');
    let text = 'id,kind,model,prompt,notes,meta.owner\n';
    for (let i = 0; i < ROWS; i++) text += `m${i},chat,chat-small,Fact ${i},note ${i},owner ${i % 3}\n`;
    writeFileSync(file, text);
    const alone = await scan([file], { useWorker: false, metaColumns: ['notes'] });
    const split = await scan([file], { useWorker: true, deferral: 'alternate', metaColumns: ['notes'] });
    expect(split.deferredRows).toBeGreaterThan(SCAN_BATCH);
    expect(split.valid).toEqual(alone.valid);
    expect(alone.invalid).toEqual([]);
    expect(alone.valid[SCAN_BATCH + 7]!.metaJson).toBe(
      JSON.stringify({ notes: `note ${SCAN_BATCH + 7}`, owner: `owner ${(SCAN_BATCH + 7) % 3}` }),
    );
    expect(alone.valid.every((r) => !r.requestJson.includes('note') && !r.requestJson.includes('owner'))).toBe(true);
    // Without the flag the header is refused in either thread, naming the column.
    const refused = await scan([file], { useWorker: true, deferral: 'alternate' });
    expect(refused.invalid.flatMap((e) => e.errors.map((x) => x.field))).toEqual(['notes']);
  },
);
