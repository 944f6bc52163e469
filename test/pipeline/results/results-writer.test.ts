import { EventEmitter } from 'node:events';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CommitQueue } from '../../../src/journal/index.js';
import type { RunContext, RunEvents } from '../../../src/pipeline/context.js';
import { resultsPath } from '../../../src/pipeline/results/results-file.js';
import { OutputStop } from '../../../src/pipeline/stops/output-stop.js';
import { ResultsWriter } from '../../../src/pipeline/results/results-writer.js';
import { entry, ingest, submitChange, useTempDir } from '../../helpers/journal-fixtures.js';
import { operatorVoice } from '../../../src/pipeline/voice/operator-voice.js';

const tmp = useTempDir();

/** `count` chat items in flight; `duringRebuild` runs each time a rebuild reads a page of answers. */
function submitted(count: number) {
  const journal = tmp.open();
  const ids = Array.from({ length: count }, (_, i) => `row-${i}`);
  ingest(
    journal,
    ids.map((id) => entry(id)),
  );
  journal.apply(ids.map((id) => submitChange(journal.get(id)!)));
  const hooks = { rebuilds: 0, duringRebuild: (_first: boolean): void => {} };
  const rows = journal.results;
  const iterate = rows.iterate.bind(rows);
  rows.iterate = (afterSeq, limit) => {
    if (afterSeq === 0) hooks.rebuilds++;
    hooks.duringRebuild(afterSeq === 0);
    return iterate(afterSeq, limit);
  };
  const outDir = join(tmp.dir(), 'out');
  const store = journal.store;
  const ctx = {
    journal: store,
    commits: new CommitQueue(store),
    settings: { outDir },
    events: new EventEmitter<RunEvents>(),
    voice: operatorVoice,
  } as unknown as RunContext;
  const answer = (id: string) =>
    journal.apply([{ id, event: 'complete', patch: { response: { text: id }, responseStatus: 200 } }]);
  return { journal, ids, ctx, hooks, outDir, answer };
}

describe('ResultsWriter', () => {
  it('answers arriving while a rebuild runs queue one more rebuild, not one each', async () => {
    const { journal, ids, ctx, hooks, outDir, answer } = submitted(90);
    const writer = new ResultsWriter(ctx, 60_000, 1);
    let next = 0;
    const arrive = (): void => {
      answer(ids[next++]!);
      writer.markDirty();
    };
    // Three answers land during each rebuild, as they do in a busy run.
    hooks.duringRebuild = (first) => {
      for (let i = 0; first && i < 3 && next < ids.length; i++) arrive();
    };
    arrive();
    await writer.flush();
    await writer.close();
    while (next < ids.length) arrive();
    await writer.close();

    expect(hooks.rebuilds).toBeLessThanOrEqual(4); // 7 when every flush() call queued its own rebuild
    expect(journal.counts().downloaded).toBe(90);
    expect(readFileSync(resultsPath(outDir), 'utf8').trimEnd().split('\n')).toHaveLength(90);
  });

  it('waits for a batch: fewer answers than the batch are written only by close()', async () => {
    const { ctx, hooks, ids, answer, journal } = submitted(10);
    const writer = new ResultsWriter(ctx, 60_000, 4);
    for (const id of ids.slice(0, 3)) {
      answer(id);
      writer.markDirty();
    }
    await writer.close();
    expect(hooks.rebuilds).toBe(1);
    expect(journal.counts().downloaded).toBe(3);
  });

  it('a rebuild that cannot write stops the run through OutputStop: flush() and close() never reject, answers stay succeeded', async () => {
    const { journal, ids, ctx, answer } = submitted(3);
    writeFileSync(join(tmp.dir(), 'a-file'), 'not a directory');
    const stopping = {
      ...ctx,
      settings: { outDir: join(tmp.dir(), 'a-file', 'out') },
      submitStop: new AbortController(),
      stop: new AbortController(),
    } as RunContext;
    const outputs = new OutputStop(stopping);
    const writer = new ResultsWriter(stopping, 60_000, 1, outputs);
    answer(ids[0]!);
    writer.markDirty();
    await writer.flush();
    await writer.close();

    expect(outputs.failure).toMatchObject({ code: 'ENOTDIR', exitCode: 2 });
    expect(outputs.failure!.message).toMatch(
      /a-file\/out\/results\.jsonl: a part of the path is not a directory \(ENOTDIR\)$/,
    );
    expect(stopping.submitStop.signal.aborted).toBe(true);
    expect(stopping.stop.signal.aborted).toBe(true);
    expect(journal.get(ids[0]!)!.state).toBe('succeeded');
  });
});
