// Work only one runner of a job may do at a time (the results file's rebuild) is held by a transaction:
// a runner frozen (SIGSTOP) while it holds it does not stall the others for ever. The server ends its
// idle session after a lease and the next runner takes the work; a live holder keeps it by its beat; and
// the frozen runner, resumed, does not crash on its ended session.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type JournalStore } from '../../../src/journal/index.js';
import { assertBuilt, REPO } from '../../helpers/crash/gbatch-child.js';
import { pgAvailable, usePgSchema } from '../../helpers/postgres.js';

const LEASE_MS = 1500;
const JOB = 'frozen-holder';

/** A process that opens the job's journal, takes the results lock and holds it until killed. */
function startHolder(url: string): { child: ChildProcess; holding: Promise<void> } {
  const script = `
    const { openStore } = await import(${JSON.stringify(`${REPO}dist/journal/open-store.js`)});
    const store = await openStore(process.env.URL, { job: ${JSON.stringify(JOB)} });
    await store.coordination.exclusive('results', async () => {
      process.stdout.write('holding\\n');
      await new Promise(() => {});
    });`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
    env: { ...process.env, URL: url, GBATCH_LOCK_STALE_MS: String(LEASE_MS) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const holding = new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('holding')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`the holder exited (${code}) before holding: ${stderr}`)));
  });
  return { child, holding };
}

/**
 * Asks for the results lock; `acquiredAt` resolves (performance.now()) once it is granted, and the work then ends at
 * once.
 */
function askForLock(store: JournalStore): Promise<number> {
  return store.coordination.exclusive('results', async () => performance.now());
}

function after<T>(ms: number, value: T): Promise<T> {
  return new Promise((resolve) => setTimeout(() => resolve(value), ms));
}

describe.skipIf(!pgAvailable())('PostgreSQL journal: a frozen holder of the results lock', () => {
  const db = usePgSchema('gbatch_frozen_holder');
  const children: ChildProcess[] = [];
  const staleKnob = process.env.GBATCH_LOCK_STALE_MS;
  let store: JournalStore;

  beforeAll(async () => {
    assertBuilt();
    process.env.GBATCH_LOCK_STALE_MS = String(LEASE_MS);
    store = await openStore(db.url(), { job: JOB });
    await store.saveJob({ name: JOB, manifest: 'm.jsonl', options: {} });
    if (staleKnob === undefined) delete process.env.GBATCH_LOCK_STALE_MS;
    else process.env.GBATCH_LOCK_STALE_MS = staleKnob;
    return async () => {
      await store.close();
    };
  });

  afterEach(() => {
    for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
  });

  it('a live holder keeps the lock past a lease; once frozen, another runner gets it within about a lease', async () => {
    const { child, holding } = startHolder(db.url());
    children.push(child);
    await holding;

    // Alive, it beats: two leases pass and the lock is still its.
    const acquired = askForLock(store);
    expect(await Promise.race([acquired, after(2 * LEASE_MS, 'still waiting')])).toBe('still waiting');

    child.kill('SIGSTOP');
    const frozenAt = performance.now();
    const acquiredAt = await Promise.race([acquired, after(6 * LEASE_MS, undefined)]);
    expect(acquiredAt, 'the lock never came free while its holder was frozen').toBeDefined();
    expect(acquiredAt! - frozenAt).toBeLessThan(3 * LEASE_MS);

    // Resumed, the holder finds its session ended and carries on without an uncaught error.
    child.kill('SIGCONT');
    const exited = once(child, 'exit');
    const stillAlive = await Promise.race([exited.then(() => false), after(LEASE_MS, true)]);
    expect(stillAlive, 'the resumed holder crashed').toBe(true);
  }, 30_000);
});
