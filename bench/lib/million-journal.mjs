// A large SQLite journal as a long campaign leaves it: chat and video rows ingested by `run --ingest-only`,
// then moved through the journal's own transitions (submit, answers, retries after 429s, rejections,
// video tasks accepted and finished, rows stored, rows left uncertain or deferred) on a clock that steps
// forward, about 2.9 events a row. Built once per build and row count and kept under bench/cache/ (not
// committed): a 1,000,000-row journal takes a few minutes to make.
import { copyFileSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { root, runGbatch } from './harness.mjs';

/** Bumped when the journal this makes changes shape, so that an older cached one is not reused. */
const GENERATION = 2;
const CHAT_MODELS = ['chat-small', 'chat-small', 'chat-small', 'chat-large'];

/** Every 10th row a video; a few rows of rare models (1 in 1,000 and 1 in 100,000). */
function rowFor(i) {
  if (i % 10 === 9)
    return {
      id: `row-${i}`,
      kind: 'video',
      model: i % 100_000 === 99_999 ? 'video-pro-2.5' : i % 1000 === 999 ? 'video-pro' : 'video-fast',
      prompt: `A slow pan over scene number ${i}`,
      resolution: '720p',
      duration: 5,
    };
  return {
    id: `row-${i}`,
    kind: 'chat',
    model: CHAT_MODELS[i % 4],
    max_tokens: 16,
    messages: [{ role: 'user', content: `Give me a one-line fact about the number ${i}.` }],
  };
}

async function writeManifest(file, rows) {
  const out = createWriteStream(file);
  for (let i = 0; i < rows; i++) if (!out.write(`${JSON.stringify(rowFor(i))}\n`)) await once(out, 'drain');
  out.end();
  await once(out, 'finish');
}

/** What happens to row i: its events in order, each a change (without id) and the clock's step after it. */
function fateOf(i) {
  const r = (i * 2654435761) % 1000;
  if (i % 10 === 9) {
    const task = { taskId: `task-${i}` };
    if (r < 20) return 'pending';
    if (r < 60)
      return [
        ['submit', { attempts: 1, reservedUsd: 0.5 }],
        ['accept', task],
        ['fail', { reservedUsd: 0, lastError: { message: 'task failed', code: 'task_failed' } }],
      ];
    if (r < 80)
      return [
        ['submit', { attempts: 1, reservedUsd: 0.5 }],
        ['accept', task],
      ];
    return [
      ['submit', { attempts: 1, reservedUsd: 0.5 }],
      ['accept', task],
      ['progress', {}],
      [
        'finish',
        { reservedUsd: 0, actualUsd: 0.5, finalResolution: '720p', resultUrl: `https://cdn.example/${i}.mp4` },
      ],
      r < 900 ? 'store' : undefined,
    ].filter(Boolean);
  }
  if (r < 10) return 'pending';
  if (r < 13)
    return [
      ['submit', { attempts: 1, reservedUsd: 0.001 }],
      ['lose', { lastError: { message: 'no answer' } }],
    ];
  if (r < 20) return [['defer', { lastError: { message: 'over budget', code: 'budget_exceeded' } }]];
  if (r < 30)
    return [
      ['submit', { attempts: 1, reservedUsd: 0.001 }],
      [
        'reject',
        {
          reservedUsd: 0,
          lastError: {
            status: 400,
            code: i % 97 === 0 ? 'content_policy' : 'invalid_request',
            message: 'refused',
          },
        },
      ],
    ];
  const answer = { reservedUsd: 0, actualUsd: 0.0004 + (r % 7) * 0.0001, totalTokens: 40 + (r % 13) };
  const done = [['complete', answer], 'store'];
  if (r < 80)
    return [
      ['submit', { attempts: 1, reservedUsd: 0.001 }],
      [
        'retry',
        { reservedUsd: 0, lastError: { status: 429, code: 'rate_limited', message: 'slow down' } },
        { status: 429, delayMs: 2000 },
      ],
      ['submit', { attempts: 2, reservedUsd: 0.001 }],
      ...done,
    ];
  return [['submit', { attempts: 1, reservedUsd: 0.001 }], ...done];
}

async function fillEvents(file, rows) {
  const { SqliteJournal } = await import(pathToFileURL(join(root, 'dist/journal/sqlite/journal.js')).href);
  let now = Date.UTC(2026, 10, 1);
  const journal = SqliteJournal.open(file, { sync: 'off', clock: { now: () => now } });
  await journal.membership.acquire();
  const batch = 500;
  try {
    for (let start = 0; start < rows; start += batch) {
      const fates = [];
      for (let i = start; i < Math.min(rows, start + batch); i++) {
        const fate = fateOf(i);
        if (fate !== 'pending') fates.push({ id: `row-${i}`, steps: fate });
      }
      // One step of every row of the batch per commit, as a run's group commits interleave rows.
      for (let step = 0; ; step++) {
        const changes = [];
        const stored = [];
        for (const { id, steps } of fates) {
          const s = steps[step];
          if (s === undefined) continue;
          if (s === 'store') stored.push(id);
          else changes.push({ id, event: s[0], patch: s[1], ...(s[2] ? { detail: s[2] } : {}) });
        }
        if (changes.length === 0 && stored.length === 0) break;
        if (changes.length > 0) await journal.applyTransitions(changes, { durability: 'relaxed' });
        if (stored.length > 0) await journal.markStored(stored, 'results.jsonl', { flushed: true });
        now += 20;
      }
    }
  } finally {
    await journal.membership.release();
    await journal.close();
  }
}

/**
 * The path of a cached journal of `rows` rows made by this checkout's build (the cache key is the journal's schema
 * version, the count of its migrations), and a fresh copy of it at `copyTo` when given (benchmarks that write to it).
 */
export async function millionJournal({ rows = 1_000_000, copyTo } = {}) {
  const cache = join(root, 'bench/cache');
  mkdirSync(cache, { recursive: true });
  const schema = readdirSync(join(root, 'src/journal/sqlite/migrations')).filter((f) => f.endsWith('.sql')).length;
  const file = join(cache, `journal-${rows}-g${GENERATION}-s${schema}.db`);
  if (!existsSync(file)) {
    const making = `${file}.making`;
    rmSync(making, { force: true });
    rmSync(`${making}-wal`, { force: true });
    const manifest = join(cache, `rows-${rows}.jsonl`);
    if (!existsSync(manifest)) await writeManifest(manifest, rows);
    const ingest = await runGbatch([
      'run',
      manifest,
      '--state',
      making,
      '--ingest-only',
      '--journal-sync',
      'off',
      '--quiet',
    ]);
    if (ingest.code !== 0) throw new Error(`ingest exited ${ingest.code}: ${ingest.stderr.slice(-400)}`);
    await fillEvents(making, rows);
    renameSync(making, file);
  }
  if (copyTo === undefined) return file;
  copyFileSync(file, copyTo);
  return copyTo;
}

export { rowFor, writeManifest };
