// The journal's own disk fills up while requests are in flight (a real tmpfs): the run stops with one
// line naming the cause and exit 75, never exit 70 with a stack; nothing is sent once the journal cannot
// take an intent; answers that arrive are held for a bounded time, so space freed meanwhile keeps them;
// and the next run, with room again, tells the truth about the answers it could not record.
import { appendFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { expect, onTestFinished, test } from 'vitest';
import { BUILT, gatewayEnv, runCli, startCli } from '../../helpers/cli.js';
import { readJournal } from '../../helpers/journal-read.js';
import { chatRow, videoRow, writeJsonl } from '../../helpers/manifests.js';
import { CAN_MOUNT, mountTmpfs } from '../../helpers/tmpfs.js';
import { workspace } from '../../helpers/workspace.js';
import { DEFAULTS, startHostileGateway } from '../../helpers/hostile-gateway.js';

function fillUp(dir: string): void {
  const chunk = Buffer.alloc(64 * 1024);
  for (;;) {
    try {
      appendFileSync(join(dir, 'filler'), chunk);
    } catch {
      return; // ENOSPC: full
    }
  }
}

test.skipIf(!BUILT || !CAN_MOUNT)(
  "the journal's disk fills up mid-run: exit 75 with the cause in one line, nothing sent after, no stack",
  async () => {
    const ws = workspace();
    const disk = mountTmpfs('2m');
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const gw = await startHostileGateway({
      routes: {
        chat: async (req, res, g) => {
          await held;
          DEFAULTS.chat(req, res, g);
        },
      },
    });
    onTestFinished(() => gw.close());
    const manifest = writeJsonl(
      ws.path('rows.jsonl'),
      Array.from({ length: 6 }, (_, i) => chatRow(`c${i}`, `Question ${i}`)),
    );
    const state = join(disk.dir, 'job.db');
    const args = ['run', manifest, '--state', state, '--out', ws.out, '--concurrency', '2', '--quiet'];
    // Answers are held through a full disk for a bounded time (space may come back): 1 s here, as it never does.
    const env = { ...gatewayEnv(gw.baseUrl, gw.key), GBATCH_JOURNAL_OUTAGE_MS: '1000' };

    const run = startCli(args, { env });
    await gw.reached(() => gw.count('POST', '/v1/chat/completions') === 2); // both intents are durable
    fillUp(disk.dir);
    release();
    const ended = await run.result;
    expect(ended.code, ended.stderr).toBe(75);
    expect(ended.stderr).toMatch(/the journal could not be written: the disk is full \(SQLITE_FULL\)/);
    expect(ended.stderr).not.toMatch(/internal error|Please report|\n\s+at /);
    expect(gw.count('POST', '/v1/chat/completions')).toBe(2); // no intent could be written after: nothing sent
    // The answers it could not record are named, the last trace of them.
    expect(
      ended.stderr.match(/item 'c[01]' was answered \(and may be billed\), but the journal could not record it/g),
    ).toHaveLength(2);

    rmSync(join(disk.dir, 'filler'));
    const again = await runCli(args, { env });
    // The two answers the journal could not record may have been billed: they are uncertain, never resent.
    expect(again.code, again.stderr).toBe(4);
    expect(gw.count('POST', '/v1/chat/completions')).toBe(6);
  },
);

test.skipIf(!BUILT || !CAN_MOUNT)(
  "the journal's disk fills with polls and submissions in flight: every lane stops at once; space freed in time keeps every answer; exit 75",
  async () => {
    const ws = workspace();
    const disk = mountTmpfs('2m');
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const hold =
      (route: typeof DEFAULTS.chat): typeof DEFAULTS.chat =>
      async (req, res, g) => {
        await held;
        await route(req, res, g);
      };
    // Chat answers and polls wait at the gateway; video submissions answer at once.
    const gw = await startHostileGateway({
      routes: { chat: hold(DEFAULTS.chat), videoPoll: hold(DEFAULTS.videoPoll) },
    });
    onTestFinished(() => gw.close());
    const manifest = writeJsonl(ws.path('rows.jsonl'), [
      videoRow('v1', 'A comet'),
      videoRow('v2', 'A harbour'),
      ...Array.from({ length: 4 }, (_, i) => chatRow(`c${i}`, `Question ${i}`)),
    ]);
    const state = join(disk.dir, 'job.db');
    const args = [
      'run',
      manifest,
      '--state',
      state,
      '--out',
      ws.out,
      '--concurrency',
      '2',
      '--poll-interval',
      '0.05',
      '--quiet',
    ];
    const env = gatewayEnv(gw.baseUrl, gw.key);

    const run = startCli(args, { env });
    onTestFinished(() => {
      run.child.kill('SIGKILL');
    });
    await gw.reached(
      () => gw.count('POST', '/v1/chat/completions') === 2 && gw.count('GET', '/v1/video/generations/') >= 2,
    );
    fillUp(disk.dir);
    release(); // the answers arrive on a full disk: the next intent cannot be written, every lane stops
    await Promise.race([run.stderrMatching(/stopping: /), run.result]);
    rmSync(join(disk.dir, 'filler')); // room again, within the bound: the answers held are written
    const ended = await run.result;
    expect(ended.code, ended.stderr).toBe(75);
    expect(ended.stderr).toMatch(/the journal could not be written: the disk is full \(SQLITE_FULL\)/);
    expect(ended.stderr).not.toMatch(/Unhandled|internal error|Please report|\n\s+at /);
    expect(gw.count('POST', '/v1/chat/completions')).toBe(2); // nothing sent after the stop

    // Every answer the gateway gave is in the journal: each task id, each chat answer; none uncertain.
    const { items } = readJournal(state);
    expect(items.filter((i) => i.state === 'uncertain' || i.state === 'submitting').map((i) => i.id)).toEqual([]);
    const taskIds = new Set(items.map((i) => i.taskId));
    for (const task of gw.tasks.keys()) expect(taskIds.has(task), `task ${task}`).toBe(true);
    const answerIds = new Set(items.map((i) => (i.response as { id?: string } | null)?.id));
    for (const charge of gw.charges.filter((c) => c.kind === 'chat'))
      expect(answerIds.has(charge.ref), `answer ${charge.ref}`).toBe(true);

    // The next run finishes the job and sends nothing twice.
    const again = await runCli(args, { env });
    expect(again.code, again.stderr).toBe(0);
    expect(gw.count('POST', '/v1/chat/completions')).toBe(4);
    expect(gw.count('POST', '/v1/video/generations')).toBe(2);
  },
);
