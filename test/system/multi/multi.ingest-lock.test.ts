// A runner frozen (SIGSTOP) in the middle of its COPY ingest holds the job's ingest lock in a busy
// session no server timeout ends. Another runner waits for it in bounded steps, says who holds it, and
// once the holder's lease has expired ends its session and ingests itself; a holder that is not a
// runner of the job is waited for up to a bound, then the run stops with exit 75, naming it.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, test } from 'vitest';
import { startSimulator } from '../../../src/sim/index.js';
import {
  assertBuilt,
  describeEnd,
  REPO,
  startGbatch,
  type Ended,
  type Gateway,
  type GbatchChild,
} from '../../helpers/crash/gbatch-child.js';
import { chatRow, writeJsonl } from '../../helpers/manifests.js';
import { pgAvailable, usePgSchema } from '../../helpers/postgres.js';
import { readReport, runnerArgs } from '../../helpers/runners.js';

const API_KEY = 'sk-multi-ingest-lock';
const LEASE_MS = 1500;
const ROWS = 12;

const dir = mkdtempSync(join(tmpdir(), 'gbatch-ingest-lock-'));
const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0))
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A runner this file ends (SIGKILL) if a test gives up on it. */
function watched(runner: GbatchChild): Promise<Ended> {
  children.push(runner.process);
  return runner.ended;
}

/** A process that joins the job (as a runner, or not), starts an ingest and stops in the middle of its COPY. */
function startCopying(
  url: string,
  job: string,
  manifest: string,
  asRunner: boolean,
): { child: ChildProcess; copying: Promise<void> } {
  const script = `
    const { openStore } = await import(${JSON.stringify(`${REPO}dist/journal/open-store.js`)});
    const store = await openStore(process.env.URL, { job: ${JSON.stringify(job)} });
    await store.saveJob({ name: ${JSON.stringify(job)}, manifest: ${JSON.stringify(manifest)}, options: {} });
    if (${asRunner}) {
      await store.membership.acquire();
      setInterval(() => void store.membership.heartbeat(), ${LEASE_MS / 5});
    }
    const writer = await store.beginIngest();
    await writer.add([{ id: 'copied-0', kind: 'chat', model: 'chat-small', request: { model: 'chat-small', messages: [] }, contentHash: 'h',
      sourceFile: ${JSON.stringify(manifest)}, sourceLine: 1, state: 'pending', estimateUsd: 0 }]);
    process.stdout.write('copying\\n');
    await new Promise(() => {});`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
    env: { ...process.env, URL: url, GBATCH_LOCK_STALE_MS: String(LEASE_MS) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const copying = new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('copying')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`the ingesting process exited (${code}) before copying: ${stderr}`)));
  });
  return { child, copying };
}

describe.skipIf(!pgAvailable())('the job ingest lock of a PostgreSQL journal', () => {
  const db = usePgSchema('gbatch_multi_ingest_lock');

  test('a runner frozen in its COPY: the next runner names it, ends its session once its lease expired, and ingests', async () => {
    assertBuilt();
    const sim = await startSimulator({ accounts: [{ key: API_KEY, balanceUsd: 100 }], seed: 5 });
    const gateway: Gateway = { baseUrl: sim.baseUrl, apiKey: API_KEY };
    try {
      const manifest = writeJsonl(
        join(dir, 'frozen.jsonl'),
        Array.from({ length: ROWS }, (_, i) => chatRow(`row-${i}`, `ingest lock row ${i}`)),
      );
      const holder = startCopying(db.url(), 'frozen', manifest, true);
      await holder.copying;
      // While the holder is alive (its lease renewed), the next runner waits and says for whom; then it freezes.
      const runner = startGbatch(runnerArgs(manifest, db.url(), join(dir, 'out-frozen')), gateway, undefined, {
        GBATCH_LOCK_STALE_MS: String(LEASE_MS),
      });
      children.push(runner.process);
      await new Promise<void>((resolve) => {
        let text = '';
        runner.process.stderr!.on('data', (chunk: string) => {
          text += chunk;
          if (text.includes(`waiting for the job's ingest lock: runner pid ${holder.child.pid} on `)) resolve();
        });
      });
      holder.child.kill('SIGSTOP');
      const waiter = await watched(runner);
      expect(waiter.code, describeEnd('the waiting runner', waiter)).toBe(0);
      expect(waiter.stderr).toMatch(/holds it \(its lease ends in \d+ s unless it renews it\)/);
      expect(waiter.stderr).toMatch(
        new RegExp(
          `ingest lock was held by runner pid ${holder.child.pid} on \\S+ \\(database session \\d+\\), whose lease expired: its database session was ended`,
        ),
      );
      const report = await readReport('frozen', db.url(), gateway);
      // The frozen pass left nothing: its row is not in the journal; every manifest row was sent once.
      expect(report.items.map((i) => `${i.id}: ${i.state}`).sort()).toEqual(
        Array.from({ length: ROWS }, (_, i) => `row-${i}: downloaded`).sort(),
      );
      expect(Object.values(sim.ledger.submissionsByPrompt()).filter((n) => n !== 1)).toEqual([]);
      holder.child.kill('SIGCONT');
    } finally {
      await sim.close();
    }
  }, 60_000);

  test('a holder that is not a runner of the job is waited for up to the bound, then the run stops (exit 75) naming its session', async () => {
    assertBuilt();
    const gateway: Gateway = { baseUrl: 'http://127.0.0.1:9/v1', apiKey: API_KEY };
    const manifest = writeJsonl(
      join(dir, 'bound.jsonl'),
      Array.from({ length: ROWS }, (_, i) => chatRow(`row-${i}`, `bound row ${i}`)),
    );
    const holder = startCopying(db.url(), 'bound', manifest, false);
    await holder.copying;
    const waiter = await watched(
      startGbatch(runnerArgs(manifest, db.url(), join(dir, 'out-bound')), gateway, undefined, {
        GBATCH_LOCK_STALE_MS: String(LEASE_MS),
        GBATCH_INGEST_WAIT_MS: '3000',
      }),
    );
    expect(waiter.code, describeEnd('the waiting runner', waiter)).toBe(75);
    expect(waiter.stderr).toMatch(/waiting for the job's ingest lock: database session \d+ \(/);
    expect(waiter.stderr).toMatch(
      /gave up waiting for the job's ingest lock after \d+ s: database session \d+ .* holds it; run again once it has finished or stopped/,
    );
  }, 60_000);
});
