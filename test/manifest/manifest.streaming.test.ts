// A manifest is read in one pass without holding it: heap growth stays far below the file size.
import { createWriteStream, statSync } from 'node:fs';
import { once } from 'node:events';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { expect, it } from 'vitest';
import { BUILTIN_PRICING } from '../../src/core/pricing.js';
import { readManifest } from '../../src/manifest/read-manifest.js';
import { tempDir } from '../helpers/manifest-reading.js';

const dir = tempDir();
const ROWS = 200_000;

/** A real collection, so samples measure what is held, not garbage awaiting collection. */
function collector(): () => void {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

async function writeRows(file: string): Promise<void> {
  const out = createWriteStream(file);
  const padding = 'lorem ipsum '.repeat(20);
  for (let i = 0; i < ROWS; i++) {
    const row =
      i % 2 === 0
        ? {
            id: `r${i}`,
            kind: 'chat',
            model: 'chat-small',
            messages: [{ role: 'user', content: `${i} ${padding}` }],
            max_tokens: 100,
          }
        : {
            id: `r${i}`,
            kind: 'video',
            model: 'video-fast',
            prompt: `${i} ${padding}`,
            resolution: '720p',
            duration: 5,
          };
    if (!out.write(`${JSON.stringify(row)}\n`)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
}

it(`reads a ${ROWS}-row JSONL with heap growth far below the file size`, async () => {
  const file = `${dir}/big.jsonl`;
  await writeRows(file);
  const fileBytes = statSync(file).size;
  const gc = collector();
  gc();
  const baseline = process.memoryUsage().heapUsed;
  let peak = 0;
  let rows = 0;
  for await (const entry of readManifest(file, { pricing: BUILTIN_PRICING })) {
    expect(entry.ok).toBe(true);
    if (++rows % 25_000 === 0) {
      gc();
      peak = Math.max(peak, process.memoryUsage().heapUsed - baseline);
    }
  }
  expect(rows).toBe(ROWS);
  expect(fileBytes).toBeGreaterThan(60_000_000);
  // Holding the lines would take at least the file size; the id set takes a few MB.
  expect(peak).toBeLessThan(fileBytes / 3);
});
