// Two processes creating the same new journal at the same instant (two `gbatch run`s started together):
// each opens it cleanly, and exactly the lock decides who runs. Never "table job already exists", never
// "database is locked". Real processes (the built dist/), released on a shared clock tick per round.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { afterEach, expect, test } from 'vitest';
import { ROOT } from '../../helpers/workspace.js';

const ROUNDS = 20;
const ROUND_MS = 120;
const DIST = join(ROOT, 'dist', 'journal', 'index.js');

const OPENER = `
import { createInterface } from 'node:readline';
const { openStore } = await import(process.argv[2]);
const [dir, rounds, roundMs] = [process.argv[3], Number(process.argv[4]), Number(process.argv[5])];
process.stdout.write('ready\\n');
const start = Number(await new Promise((resolve) => createInterface({ input: process.stdin }).once('line', resolve)));
const results = [];
for (let i = 0; i < rounds; i++) {
  while (Date.now() < start + i * roundMs) { /* spin: both processes leave on the same tick */ }
  const file = dir + '/job-' + i + '.db';
  let journal;
  try {
    journal = await openStore(file, { job: 'job' });
    await journal.membership.acquire();
    await journal.membership.release();
    results.push('ran');
  } catch (err) {
    results.push(err.code === 'GBATCH_JOURNAL_BUSY' ? 'busy' : 'error: ' + err.message);
  } finally {
    await journal?.close();
  }
}
process.stdout.write(JSON.stringify(results) + '\\n');
`;

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function opener(script: string, into: string) {
  const child = spawn(process.execPath, [script, pathToFileURL(DIST).href, into, String(ROUNDS), String(ROUND_MS)], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout! });
  const ready = new Promise<void>((resolve) => lines.once('line', () => resolve()));
  const results = new Promise<string[]>((resolve, reject) => {
    lines.on('line', (line) => {
      if (line !== 'ready') resolve(JSON.parse(line) as string[]);
    });
    child.once('exit', (code) => reject(new Error(`opener exited ${code} without results`)));
  });
  return { child, ready, results };
}

test.skipIf(!existsSync(DIST))(
  `${ROUNDS} rounds of two processes creating one fresh journal at once: no failure but the lock's refusal`,
  async () => {
    dir = mkdtempSync(join(tmpdir(), 'gbatch-create-'));
    const script = join(dir, 'opener.mjs');
    writeFileSync(script, OPENER);
    const pair = [opener(script, dir), opener(script, dir)];
    await Promise.all(pair.map((p) => p.ready));
    const start = Date.now() + 100;
    for (const p of pair) p.child.stdin!.end(`${start}\n`);
    const [a, b] = await Promise.all(pair.map((p) => p.results));

    const failures = [...a!, ...b!].filter((r) => r.startsWith('error'));
    expect(failures).toEqual([]);
    // Each round someone ran; when both did, the first had already released the lock.
    for (let i = 0; i < ROUNDS; i++) expect([a![i], b![i]]).toContain('ran');
  },
  20_000,
);
