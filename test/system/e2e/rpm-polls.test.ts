// --rpm is the account's pace over every request: 60 video tasks polled every 5 s would make ~720
// requests a minute; with --rpm the gateway sees no minute over it (polls and downloads included),
// and its rate limit never answers 429. Simulator and runners share one fast clock (30x).

import { expect, test } from 'vitest';
import type { RequestRecord } from '../../../src/sim/index.js';
import { FastClock } from '../../helpers/fast-clock.js';
import { readJournal } from '../../helpers/journal-read.js';
import { videoRow, writeJsonl } from '../../helpers/manifests.js';
import { runInProcess } from '../../helpers/run.js';
import { duplicates, KEY, startSim } from '../../helpers/sim.js';
import { workspace } from '../../helpers/workspace.js';

const SCALE = 30;
const RPM = 120;
const TASKS = 60;

/** The most requests any minute (a sliding window starting at each request) holds. */
function busiestMinute(requests: readonly RequestRecord[]): number {
  const times = requests.map((r) => r.at).sort((a, b) => a - b);
  let most = 0;
  for (let i = 0, j = 0; i < times.length; i++) {
    while (j < times.length && times[j]! < times[i]! + 60_000) j++;
    most = Math.max(most, j - i);
  }
  return most;
}

test('60 tasks in flight, --rpm 120 against a 150/min limit: no minute over the pace counting polls and downloads, no 429', async () => {
  const ws = workspace();
  const clock = new FastClock(SCALE);
  const sim = await startSim({
    clock,
    taskSeconds: 60,
    accounts: [{ key: KEY, balanceUsd: 100, rateLimitPerMinute: 150 }],
  });
  const manifest = writeJsonl(
    ws.path('rows.jsonl'),
    Array.from({ length: TASKS }, (_, i) => videoRow(`v${i}`, `A lantern, take ${i}`)),
  );
  const settings = { concurrency: 16, pollConcurrency: 64, pollIntervalMs: 5_000 };
  const extra = { journalDurability: 'relaxed' as const };

  // Last night's run: 60 tasks submitted, none polled yet. Tonight's run finds them all in flight at once.
  const submitted = await runInProcess({
    sim,
    ws,
    manifests: [manifest],
    clock,
    settings: { ...settings, noWait: true },
    extra,
  });
  expect(submitted.exitCode).toBe(75);
  const sent = sim.ledger.requests.length;
  const result = await runInProcess({
    sim,
    ws,
    manifests: [manifest],
    clock,
    settings: { ...settings, rpm: RPM },
    extra,
  });

  expect(result.exitCode).toBe(0);
  expect(readJournal(ws.state).counts.downloaded).toBe(TASKS);
  expect(duplicates(sim.ledger)).toEqual({});
  const requests = sim.ledger.requests.slice(sent).filter((r) => r.account === 'acct-1' && r.path.startsWith('/v1/'));
  const polls = requests.filter((r) => r.method === 'GET' && !r.path.endsWith('/content'));
  expect(polls.length).toBeGreaterThanOrEqual(TASKS); // every task was polled
  expect(requests.filter((r) => r.status === 429)).toEqual([]);
  // Slack for the fast clock: a request's arrival trails the moment the runner counted it by a few real ms.
  expect(busiestMinute(requests)).toBeLessThanOrEqual(Math.ceil(RPM * 1.05));
}, 120_000);
