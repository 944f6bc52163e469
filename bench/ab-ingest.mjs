// Side by side: `run --ingest-only` of one 1M-row chat JSONL by this checkout and another (a built checkout),
// alternating, fresh journal each run: on a machine whose speed drifts within minutes, only such runs compare two
// builds' ingest into the journal.
// Usage: npm run build && node bench/ab-ingest.mjs <other-checkout-dir> [rounds=3] [rows=1000000]
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { chatJsonl } from './lib/manifests.mjs';
import { requireBuild, root, tempDir } from './lib/harness.mjs';
const [other, rounds = '3', rows = '1000000'] = process.argv.slice(2);
if (!other) {
  console.error('usage: node bench/ab-ingest.mjs <other-checkout-dir> [rounds] [rows]');
  process.exit(2);
}
requireBuild();
const dir = tempDir('ab-ingest');
const manifest = await chatJsonl(join(dir, 'm.jsonl'), Number(rows));
const s = { this: [], other: [] };
for (let r = 0; r < Number(rounds); r++)
  for (const name of r % 2 ? ['this', 'other'] : ['other', 'this']) {
    const state = join(dir, `${name}.db`);
    for (const x of ['', '-wal', '-shm']) rmSync(state + x, { force: true });
    const t = performance.now();
    const p = spawnSync(process.execPath, [
      join(name === 'this' ? root : other, 'bin/gbatch.js'),
      'run',
      manifest,
      '--ingest-only',
      '--state',
      state,
      '--quiet',
      '--json',
    ]);
    if (p.status !== 0) throw new Error(String(p.stderr));
    s[name].push(+((performance.now() - t) / 1000).toFixed(2));
  }
rmSync(dir, { recursive: true, force: true });
const med = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];
console.log(
  JSON.stringify({
    benchmark: 'ab-ingest',
    rows: Number(rows),
    seconds: s,
    median_s: { this: med(s.this), other: med(s.other) },
    rows_per_s: { this: Math.round(rows / med(s.this)), other: Math.round(rows / med(s.other)) },
  }),
);
