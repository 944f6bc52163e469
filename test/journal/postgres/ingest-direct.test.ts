// A first ingest (the job holds no rows yet) copies rows straight into items: rows keep manifest order,
// an id repeated within the pass is still judged (unchanged, conflict, replaced) as before, the
// writer's own tally gives the job's counts, and a real `gbatch run --ingest-only` killed with SIGKILL
// mid-COPY leaves an empty journal that the next run fills.
import { createWriteStream, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore } from '../../../src/journal/index.js';
import { assertBuilt, describeEnd, gbatch, startGbatch, type Gateway } from '../../helpers/crash/gbatch-child.js';
import { chatRow, writeJsonl } from '../../helpers/manifests.js';
import { pgAvailable, usePgSchema } from '../../helpers/postgres.js';
import { ITEM_STATES, type ItemState } from '../../../src/core/states.js';
import { ingest, invalidRow, row } from '../conformance/harness.js';

const zeroCounts = (): Record<ItemState, number> =>
  Object.fromEntries(ITEM_STATES.map((s) => [s, 0])) as Record<ItemState, number>;

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}

const NO_GATEWAY: Gateway = { baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'unused' };

const dir = mkdtempSync(join(tmpdir(), 'gbatch-pgdirect-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function writeChatManifest(file: string, rows: number): Promise<string> {
  const out = createWriteStream(file);
  for (let i = 0; i < rows; i++) {
    if (!out.write(`${JSON.stringify(chatRow(`c-${i}`, `fact number ${i}`))}\n`)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
  return file;
}

describe.skipIf(!pgAvailable())('PostgreSQL first ingest, copied straight into items', () => {
  const db = usePgSchema('gbatch_direct');

  it('knows the counts it left; a later pass into the same job is judged and knows none', async () => {
    const store = await openStore(db.url(), { job: 'tally' });
    try {
      const rows = [
        ...Array.from({ length: 500 }, (_, i) => row(`r${i}`, i + 1)),
        invalidRow('broken', 501),
        row('last', 502),
      ];
      const writer = await store.beginIngest();
      for (let i = 0; i < rows.length; i += 64) await writer.add(rows.slice(i, i + 64));
      expect(writer.committedTotals?.()).toBeUndefined(); // not before the commit
      expect(await writer.commit()).toEqual({ inserted: 502, unchanged: 0, replaced: 0, conflicts: [] });
      const totals = writer.committedTotals?.();
      expect(totals).toEqual({
        counts: { ...zeroCounts(), pending: 501, invalid: 1 },
        spend: { reservedUsd: 0, actualUsd: 0 },
      });
      expect(totals!.counts).toEqual(await store.counts());
      expect(totals!.spend).toEqual(await store.spend());
      expect((await collect(store.iterate())).map((i) => i.id)).toEqual(rows.map((r) => r.id));

      const again = await store.beginIngest();
      await again.add([row('r0', 1), row('new', 503)]);
      expect(await again.commit()).toEqual({ inserted: 1, unchanged: 1, replaced: 0, conflicts: [] });
      expect(again.committedTotals?.()).toBeUndefined();
    } finally {
      await store.close();
    }
  });

  it('a repeated id after thousands of copied rows is judged; the rows keep manifest order', async () => {
    const store = await openStore(db.url(), { job: 'repeat' });
    try {
      const head = Array.from({ length: 3000 }, (_, i) => row(`h${i}`, i + 1));
      const tail = Array.from({ length: 3000 }, (_, i) => row(`t${i}`, 3003 + i));
      const rows = [
        ...head,
        row('h10', 3001), // same content: unchanged
        invalidRow('h20', 3002, { contentHash: 'other' }), // different content under a pending id: a conflict
        ...tail,
        invalidRow('fix-me', 6003),
        row('fix-me', 6004, { contentHash: 'fixed' }), // replaced
      ];
      const writer = await store.beginIngest();
      for (let i = 0; i < rows.length; i += 64) await writer.add(rows.slice(i, i + 64));
      const summary = writer.settle ? await writer.settle() : writer.progress;
      expect(summary).toEqual({
        inserted: 6001,
        unchanged: 1,
        replaced: 1,
        conflicts: [{ id: 'h20', file: 'manifest.jsonl', line: 3002, journalFile: 'manifest.jsonl', journalLine: 21 }],
      });
      // The caller refuses a pass with a conflict; without it, the same rows commit in manifest order.
      await writer.rollback();
      expect(await store.counts()).toEqual(zeroCounts());

      const accepted = rows.filter((r) => r.sourceLine !== 3002);
      expect(await ingest(store, accepted)).toEqual({ inserted: 6001, unchanged: 1, replaced: 1, conflicts: [] });
      const seen = await collect(store.iterate());
      expect(seen.map((i) => i.id)).toEqual([...head, ...tail, rows.at(-2)!].map((r) => r.id));
      expect(seen.every((item, i) => i === 0 || item.seq > seen[i - 1]!.seq)).toBe(true);
      expect((await store.get('fix-me'))!).toMatchObject({ state: 'pending', contentHash: 'fixed', sourceLine: 6004 });
      expect((await store.get('h10'))!.sourceLine).toBe(11);
    } finally {
      await store.close();
    }
  });

  it('after a repeated id, a full chunk is judged and merged; new rows then go straight in again, and a later repeat of a judged row is still judged', async () => {
    const store = await openStore(db.url(), { job: 'back-again' });
    try {
      const judgedChunk = Array.from({ length: 50_000 }, (_, i) => row(`j${i}`, 102 + i)); // the staging chunk's size
      const after = Array.from({ length: 1000 }, (_, i) => row(`a${i}`, 50_102 + i));
      const rows = [
        ...Array.from({ length: 100 }, (_, i) => row(`d${i}`, i + 1)),
        row('d5', 101), // repeated: this row and the next 50,000 are staged, judged and merged
        ...judgedChunk,
        ...after,
        row('j7', 51_102), // repeats a row that went the judged way
      ];
      expect(await ingest(store, rows)).toEqual({ inserted: 51_100, unchanged: 2, replaced: 0, conflicts: [] });
      const seen = await collect(store.iterate({}, 5000));
      expect(seen.map((i) => i.sourceLine)).toEqual(
        rows.filter((r) => r.sourceLine !== 101 && r.sourceLine !== 51_102).map((r) => r.sourceLine),
      );
      expect(seen.every((item, i) => i === 0 || item.seq > seen[i - 1]!.seq)).toBe(true);
    } finally {
      await store.close();
    }
  }, 60_000);

  it('tabs, newlines and backslashes in any field come back exactly, copied straight in or judged', async () => {
    const store = await openStore(db.url(), { job: 'escapes' });
    try {
      const odd = (id: string, line: number): ReturnType<typeof row> =>
        invalidRow(id, line, {
          sourceFile: 'dir\\with\ttab\nand line.jsonl',
          contentHash: `invalid:${id}\r\n`,
          lastError: { message: 'a\tb\\c\nd' },
        });
      // The second 'x\ty' is judged (a repeated id), and replaces the invalid first one.
      const rows = [
        odd('x\ty', 1),
        odd('back\\slash\n', 2),
        row('x\ty', 3, { sourceFile: 'dir\\with\ttab\nand line.jsonl' }),
      ];
      expect(await ingest(store, rows)).toEqual({ inserted: 2, unchanged: 0, replaced: 1, conflicts: [] });
      expect((await store.get('back\\slash\n'))!).toMatchObject({
        state: 'invalid',
        sourceFile: 'dir\\with\ttab\nand line.jsonl',
        contentHash: 'invalid:back\\slash\n\r\n',
        lastError: { message: 'a\tb\\c\nd' },
      });
      expect((await store.get('x\ty'))!).toMatchObject({
        state: 'pending',
        sourceLine: 3,
        sourceFile: 'dir\\with\ttab\nand line.jsonl',
      });
    } finally {
      await store.close();
    }
  });

  it('run --ingest-only killed with SIGKILL mid-COPY leaves nothing; the next run ingests every row once, in order; a changed row is then refused', async () => {
    assertBuilt();
    const rows = 80_000; // over a second of COPY here: the kill lands in it
    const manifest = await writeChatManifest(join(dir, 'big.jsonl'), rows);
    const args = ['run', manifest, '--journal', db.url(), '--ingest-only', '--json', '--quiet'];
    const child = startGbatch(args, NO_GATEWAY);
    // Killed once the server has taken some of its rows into items (PostgreSQL's COPY progress view).
    for (;;) {
      const {
        rows: [copy],
      } = await db
        .query<{ n: string }>(
          `SELECT tuples_processed AS n FROM pg_stat_progress_copy
        WHERE relid = to_regclass($1)`,
          [`${db.schema}.items`],
        )
        .catch(() => ({ rows: [] as Array<{ n: string }> }));
      if (copy && Number(copy.n) > 1000) break;
      if (!child.running) throw new Error(describeEnd('the ingest ended before it could be killed', await child.ended));
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    child.kill();
    expect((await child.ended).signal).toBe('SIGKILL');
    expect(
      (
        await db.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM items WHERE job_id = (SELECT id FROM jobs WHERE name = 'big')`,
        )
      ).rows[0]!.n,
    ).toBe(0);

    const rerun = await gbatch(args, NO_GATEWAY);
    expect(rerun.code, describeEnd('rerun', rerun)).toBe(0);
    const printed = JSON.parse(rerun.stdout) as { counts: Record<string, number>; ingest: { inserted: number } };
    expect(printed.ingest.inserted).toBe(rows);
    expect(printed.counts).toEqual({ ...zeroCounts(), pending: rows });
    const {
      rows: [check],
    } = await db.query<{
      n: number;
      ids: number;
      out_of_order: number;
    }>(`SELECT count(*)::int AS n, count(DISTINCT id)::int AS ids,
      count(*) FILTER (WHERE prev >= source_line)::int AS out_of_order
      FROM (SELECT id, source_line, lag(source_line) OVER (ORDER BY seq) AS prev FROM items WHERE job_id = (SELECT id FROM jobs WHERE name = 'big')) s`);
    expect(check).toEqual({ n: rows, ids: rows, out_of_order: 0 });

    // The same job (a manifest of the same name) with a row changed under a known id: refused, nothing written.
    mkdirSync(join(dir, 'changed'));
    const changed = writeJsonl(join(dir, 'changed', 'big.jsonl'), [
      chatRow('c-0', 'fact number 0'),
      chatRow('c-7', 'a different fact'),
    ]);
    const refused = await gbatch(
      ['run', changed, '--journal', db.url(), '--ingest-only', '--json', '--quiet'],
      NO_GATEWAY,
    );
    expect(refused.code, describeEnd('changed row', refused)).toBe(2);
    expect(refused.stderr).toContain("row 'c-7': already in the journal");
    const {
      rows: [kept],
    } = await db.query<{ n: number; request: string }>(`SELECT count(*)::int AS n,
      max(request) FILTER (WHERE id = 'c-7') AS request FROM items WHERE job_id = (SELECT id FROM jobs WHERE name = 'big')`);
    expect(kept!.n).toBe(rows);
    expect(kept!.request).toContain('fact number 7');
  }, 120_000);

  it('run --ingest-only prints the counts of a first ingest with invalid rows kept (--skip-invalid) as the journal has them', async () => {
    const manifest = writeJsonl(join(dir, 'mixed.jsonl'), [
      chatRow('a', 'one'),
      '{not json',
      chatRow('b', 'two'),
      chatRow('a', 'a repeated id'),
      chatRow('c', 'three'),
    ]);
    const ran = await gbatch(
      ['run', manifest, '--journal', db.url(), '--ingest-only', '--skip-invalid', '--json', '--quiet'],
      NO_GATEWAY,
    );
    expect(ran.code, describeEnd('run', ran)).toBe(0);
    const printed = JSON.parse(ran.stdout) as { counts: Record<string, number> };
    expect(printed.counts).toEqual({ ...zeroCounts(), pending: 3, invalid: 2 });
    const status = await gbatch(['status', 'mixed', '--journal', db.url(), '--json'], NO_GATEWAY);
    expect((JSON.parse(status.stdout) as { counts: Record<string, number> }).counts).toEqual(printed.counts);
  }, 60_000);
});
