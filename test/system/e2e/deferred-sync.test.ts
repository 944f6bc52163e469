// A stored video's journal record skips its own fsync; the run makes it durable before it reports.
import { fsyncSync, closeSync, openSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { videoRow, writeJsonl } from '../../helpers/manifests.js';
import { runInProcess } from '../../helpers/run.js';
import { startSim } from '../../helpers/sim.js';
import { workspace } from '../../helpers/workspace.js';
import { openSyncJournal } from '../../helpers/journal-raw.js';

describe('deferred sync of download records', () => {
  it('every video is downloaded and the WAL is fsynced after the last record, before the run returns', async () => {
    const sim = await startSim();
    const ws = workspace();
    const manifest = writeJsonl(
      ws.path('videos.jsonl'),
      Array.from({ length: 6 }, (_, i) => videoRow(`v${i}`, `a quiet lake ${i}`)),
    );
    const seenAtSync: Array<Record<string, number>> = [];
    const flushFile = (walPath: string): void => {
      const reader = openSyncJournal(ws.state, { readonly: true });
      seenAtSync.push(Object.fromEntries(Object.entries(reader.counts()).filter(([, n]) => n > 0)));
      reader.close();
      const fd = openSync(walPath, 'r');
      fsyncSync(fd);
      closeSync(fd);
    };
    const result = await runInProcess({
      sim,
      ws,
      manifests: [manifest],
      settings: { downloadConcurrency: 2 },
      extra: { flushFile },
    });
    expect(result.exitCode).toBe(0);
    expect(result.counts.downloaded).toBe(6);
    expect(seenAtSync[0]).toEqual({ downloaded: 6 });
  });
});
