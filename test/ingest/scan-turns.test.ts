// A long scan gives the event loop a turn every ROWS_PER_TURN rows: a server checking a large batch keeps
// answering its other clients meanwhile (an async generator over lines already read runs on microtasks alone).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { BUILTIN_PRICING } from '../../src/core/pricing.js';
import { scanManifests } from '../../src/ingest/scan-manifests.js';
import { useTempDir } from '../helpers/journal-fixtures.js';

const tmp = useTempDir();

it('turns the event loop at least once per 256 rows scanned', async () => {
  const rows = 5_000;
  const file = join(tmp.dir(), 'rows.jsonl');
  writeFileSync(
    file,
    Array.from({ length: rows }, (_, i) =>
      JSON.stringify({
        id: `r${i}`,
        kind: 'chat',
        model: 'chat-small',
        messages: [{ role: 'user', content: `hi ${i}` }],
      }),
    ).join('\n') + '\n',
  );
  let turns = 0;
  let scanning = true;
  const tick = (): void => {
    turns++;
    if (scanning) setImmediate(tick);
  };
  setImmediate(tick);
  const summary = await scanManifests([file], BUILTIN_PRICING, { valid: () => {}, invalid: () => {} });
  scanning = false;
  expect(summary.valid).toBe(rows);
  expect(turns).toBeGreaterThanOrEqual(Math.floor(rows / 256));
});
