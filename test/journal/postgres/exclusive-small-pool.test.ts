// Exclusive work on a journal whose pool has few sessions, with many callers at once: in one process and
// in two. Each caller's work itself needs a session of the pool (as the results file's rebuild does). No
// caller may hold a session waiting for the lock while the holder waits for a session: the server's
// lock_timeout (set on these sessions) turns such a wait into a failure instead of a hang. Mutual exclusion
// is read from a counter each work reads, then writes one higher, with a query between: a lost update
// shows two works at once.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type JournalStore } from '../../../src/journal/index.js';
import { assertBuilt, REPO } from '../../helpers/crash/gbatch-child.js';
import { PG_TEST_URL, pgAvailable, usePgSchema } from '../../helpers/postgres.js';

const JOB = 'small-pool';
const POOL_SIZE = 2;
const CALLERS = 12;
const LOCK_TIMEOUT_MS = 5000;

/** One exclusive work: the counter read, a query, the counter written one higher (all on the journal's pool). */
const WORK = `async (coordination, key) => {
  const n = Number((await coordination.handover(key)) ?? 0);
  await coordination.jobMoney();
  await coordination.recordHandover(key, String(n + 1));
}`;
// The same source runs in the child process.
const work = new Function(`return ${WORK}`)() as (c: JournalStore['coordination'], key: string) => Promise<void>;

/** `callers` concurrent exclusive works on `key`; the most seen inside at once. */
async function contend(store: JournalStore, key: string, callers: number): Promise<number> {
  let inside = 0;
  let most = 0;
  await Promise.all(
    Array.from({ length: callers }, () =>
      store.coordination.exclusive('results', async () => {
        most = Math.max(most, ++inside);
        try {
          await work(store.coordination, key);
        } finally {
          inside--;
        }
      }),
    ),
  );
  return most;
}

/** A process that opens the job with the same small pool, says `ready`, and on `go` runs its callers. */
function startContender(
  url: string,
  key: string,
): { child: ChildProcess; ready: Promise<void>; ended: Promise<string> } {
  const script = `
    const { openStore } = await import(${JSON.stringify(`${REPO}dist/journal/open-store.js`)});
    const store = await openStore(process.env.URL, { job: ${JSON.stringify(JOB)}, poolSize: ${POOL_SIZE} });
    const work = ${WORK};
    process.stdout.write('ready\\n');
    await new Promise((resolve) => process.stdin.once('data', resolve));
    await Promise.all(Array.from({ length: ${CALLERS} }, () =>
      store.coordination.exclusive('results', () => work(store.coordination, ${JSON.stringify(key)}))));
    await store.close();
    process.stdout.write('done\\n');
    process.stdin.destroy();`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
    env: { ...process.env, URL: url },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const ready = new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (stdout.includes('ready')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`the contender exited (${code}) before ready: ${stderr}`)));
  });
  const ended = once(child, 'exit').then(([code]) => {
    if (code !== 0 || !stdout.includes('done')) throw new Error(`the contender exited ${code}: ${stderr}`);
    return stdout;
  });
  return { child, ready, ended };
}

describe.skipIf(!pgAvailable())('PostgreSQL journal: exclusive work on a small pool', () => {
  const db = usePgSchema('gbatch_small_pool');
  const url = (): string =>
    `${PG_TEST_URL}?options=${encodeURIComponent(`-c search_path=${db.schema} -c lock_timeout=${LOCK_TIMEOUT_MS}`)}`;
  let store: JournalStore;
  let contender: ChildProcess | undefined;

  beforeAll(async () => {
    assertBuilt();
    store = await openStore(url(), { job: JOB, poolSize: POOL_SIZE });
  });

  afterAll(async () => {
    if (contender?.exitCode === null) contender.kill('SIGKILL');
    await store?.close();
  });

  const count = async (key: string): Promise<number> => Number(await store.coordination.handover(key));

  it(`${CALLERS} callers in one process on a pool of ${POOL_SIZE}: all run, one at a time`, async () => {
    expect(await contend(store, 'one-process', CALLERS)).toBe(1);
    expect(await count('one-process')).toBe(CALLERS);
  }, 60_000);

  it(`${CALLERS} callers in each of two processes on pools of ${POOL_SIZE}: all run, one at a time`, async () => {
    const other = startContender(url(), 'two-processes');
    contender = other.child;
    await other.ready;
    other.child.stdin!.write('go\n');
    const [most] = await Promise.all([contend(store, 'two-processes', CALLERS), other.ended]);
    expect(most).toBe(1);
    expect(await count('two-processes')).toBe(2 * CALLERS);
  }, 60_000);
});
