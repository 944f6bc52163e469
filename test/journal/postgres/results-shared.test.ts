// Runners of one job rebuild results.jsonl in turn (issue 11): each appends to the settled prefix the
// last rebuild recorded in the journal, on whichever runner it ran, instead of rewriting the file.
import { EventEmitter } from 'node:events';
import { mkdtempSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CommitQueue, type Change, openStore, type JournalStore } from '../../../src/journal/index.js';
import type { RunContext, RunEvents } from '../../../src/pipeline/context.js';
import { resultsPath, writeResultsFile } from '../../../src/pipeline/results/results-file.js';
import { ResultsWriter } from '../../../src/pipeline/results/results-writer.js';
import { pgAvailable, usePgSchema } from '../../helpers/postgres.js';
import { ingest, row } from '../conformance/harness.js';
import { operatorVoice } from '../../../src/pipeline/voice/operator-voice.js';

describe.skipIf(!pgAvailable())('PostgreSQL journal: runners sharing the results file', () => {
  const db = usePgSchema('gbatch_results_shared');
  const opened: JournalStore[] = [];
  const dirs: string[] = [];
  let jobCount = 0;

  afterEach(async () => {
    for (const store of opened.splice(0)) await store.close();
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  async function runner(name: string): Promise<JournalStore> {
    const store = await openStore(db.url(), { job: name });
    opened.push(store);
    return store;
  }

  /** A job of `rows` chat rows, two runners joined, one out dir. */
  async function job(rows: number) {
    const name = `shared-${++jobCount}`;
    const [a, b] = [await runner(name), await runner(name)];
    await ingest(
      a,
      Array.from({ length: rows }, (_, i) =>
        row(`r${i}`, i + 1, {
          request: { model: 'chat-small', messages: [{ role: 'user', content: `héllo ✓ r${i}` }] },
        }),
      ),
    );
    await a.saveJob({ name, manifest: 'm.jsonl', options: {} });
    await a.membership.acquire();
    await b.membership.acquire();
    const dir = mkdtempSync(join(tmpdir(), 'gbatch-results-shared-'));
    dirs.push(dir);
    return { name, a, b, outDir: join(dir, 'out'), fullDir: join(dir, 'full') };
  }

  /** `store` sends and answers `ids` (the rows become its own, then `succeeded`). */
  async function answer(store: JournalStore, ids: string[]): Promise<void> {
    await store.applyTransitions(
      ids.map((id): Change => ({ id, event: 'submit', patch: { attempts: 1, reservedUsd: 0.01 }, expect: 'pending' })),
    );
    await store.applyTransitions(
      ids.map((id): Change => ({
        id,
        event: 'complete',
        expect: 'submitting',
        patch: {
          response: { id: `chatcmpl-${id}`, text: `answer ✓ ${id}` },
          responseStatus: 200,
          requestId: `req-${id}`,
          reservedUsd: 0,
          actualUsd: 0.01,
        },
      })),
    );
  }

  function writer(store: JournalStore, outDir: string): ResultsWriter {
    const ctx = {
      journal: store,
      commits: new CommitQueue(store),
      settings: { outDir },
      events: new EventEmitter<RunEvents>(),
      voice: operatorVoice,
    } as unknown as RunContext;
    return new ResultsWriter(ctx);
  }

  it("a second runner appends to the prefix the first recorded: the bytes one whole rebuild gives, the first runner's lines kept in place", async () => {
    const { a, b, outDir, fullDir } = await job(600);
    const ids = Array.from({ length: 600 }, (_, i) => `r${i}`);
    await answer(a, ids.slice(0, 400));
    await answer(b, ids.slice(400, 550)); // r550.. still pending: the prefix stops before them
    await writer(a, outDir).close();
    const first = statSync(resultsPath(outDir));
    await answer(b, ids.slice(550));

    const reads: number[] = [];
    const resultRows = b.resultRows.bind(b);
    b.resultRows = (after, limit, maxBytes) => (reads.push(after), resultRows(after, limit, maxBytes));
    await writer(b, outDir).close();

    await writeResultsFile(a, fullDir);
    const text = readFileSync(resultsPath(outDir), 'utf8');
    expect(text).toBe(readFileSync(resultsPath(fullDir), 'utf8'));
    expect(text.trimEnd().split('\n')).toHaveLength(600);
    // Appended in place: the same file, read from the journal only past the first runner's prefix.
    expect(statSync(resultsPath(outDir)).ino).toBe(first.ino);
    expect(Math.min(...reads)).toBe((await a.get('r549'))!.seq);
    expect((await a.counts()).downloaded).toBe(600);
  });

  it('a file replaced since the last record (a crash between the rename and the record, a hand edit) is rebuilt whole from the journal', async () => {
    const { a, b, outDir, fullDir } = await job(40);
    const ids = Array.from({ length: 40 }, (_, i) => `r${i}`);
    await answer(a, ids.slice(0, 20));
    await writer(a, outDir).close();
    const stale = join(outDir, 'stale.jsonl');
    writeFileSync(stale, readFileSync(resultsPath(outDir), 'utf8').replace('r3', 'rX'));
    renameSync(stale, resultsPath(outDir));
    await answer(b, ids.slice(20));

    await writer(b, outDir).close();

    await writeResultsFile(a, fullDir);
    expect(readFileSync(resultsPath(outDir), 'utf8')).toBe(readFileSync(resultsPath(fullDir), 'utf8'));
  });

  it('a record made before a runner joined is not offered to it (rows may have been sent again since)', async () => {
    const { name, a } = await job(0);
    const text = JSON.stringify({ seq: 7, bytes: 100, file: { ino: 1, size: 100, mtimeMs: 1 } });
    await a.coordination.recordHandover('host:/out/results.jsonl', text);
    expect(await a.coordination.handover('host:/out/results.jsonl')).toBe(text);
    expect(await a.coordination.handover('other:/out/results.jsonl')).toBeUndefined();
    const later = await runner(name);
    await later.membership.acquire();
    expect(await later.coordination.handover('host:/out/results.jsonl')).toBeUndefined();
  });
});
