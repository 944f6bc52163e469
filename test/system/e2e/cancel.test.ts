// Issue 13: `gbatch cancel` stops a job for good. With a live runner: no submission reaches the gateway
// after the command returns; pending rows are cancelled, never sent; the video tasks already submitted are
// still polled, downloaded and settled (the gateway has no cancel: they are billed, and the journal's
// actual spend equals what the gateway charged). A later `run` revives nothing; `retry --cancelled` does.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { BUILT, gatewayEnv, runCli, startCli, stdoutJson } from '../../helpers/cli.js';
import { readJournal } from '../../helpers/journal-read.js';
import { chatRow, videoRow, writeJsonl } from '../../helpers/manifests.js';
import { KEY, posts, startSim } from '../../helpers/sim.js';
import { runAsPrinted } from '../../helpers/suggested.js';
import { workspace } from '../../helpers/workspace.js';
import { pgAvailable, usePgSchema } from '../../helpers/postgres.js';

const VIDEOS = 3;
const CHATS = 30;

test.skipIf(!BUILT)(
  'cancel under a live run: nothing is sent after it returns, tasks in flight settle; a later run revives nothing; retry --cancelled does',
  async () => {
    const ws = workspace();
    // Slow answers, one lane: the run is early in the chat rows when the cancel lands; the videos take seconds.
    const sim = await startSim({ taskSeconds: 1.5, faults: { latencyMs: 150 } });
    const env = { ...gatewayEnv(sim.baseUrl, KEY), GBATCH_CANCEL_CHECK_MS: '100' };
    const rows = [
      ...Array.from({ length: VIDEOS }, (_, i) => videoRow(`v${i}`, `A night sky, take ${i}`)),
      ...Array.from({ length: CHATS }, (_, i) => chatRow(`c${i}`, `Name a star, take ${i}`)),
    ];
    const manifest = writeJsonl(ws.path('rows.jsonl'), rows);
    const args = [
      'run',
      manifest,
      '--state',
      ws.state,
      '--out',
      ws.out,
      '--concurrency',
      '1',
      '--poll-interval',
      '0.05',
      '--quiet',
      '--json',
    ];
    const live = startCli(args, { env });
    await sim.ledger.reached((ledger) => posts(ledger) >= VIDEOS + 1);

    const cancel = await runCli(['cancel', '--state', ws.state, '--reason', 'wrong prompts'], { env });
    const returnedAt = Date.now();
    expect(cancel.code, cancel.stderr).toBe(0);
    expect(cancel.stdout).toMatch(
      /^job cancelled \(wrong prompts\): \d+ pending and 0 deferred item\(s\) are now cancelled; they are never sent$/m,
    );
    expect(cancel.stdout).toMatch(/the gateway has no cancel, so they will be billed/);
    expect(cancel.stdout).toContain(`runner pid ${live.child.pid} (`);
    expect(cancel.stdout).toContain('gbatch retry --state');

    const ended = await live.result;
    expect(ended.code, ended.stderr).toBe(0);
    expect(ended.stderr).toMatch(/the job was cancelled \(.*: wrong prompts\): nothing more is sent/);
    const summary = stdoutJson(ended);
    expect(summary.stop_reason).toBe('cancelled');

    // No request that carries work arrived after `cancel` returned.
    const sent = sim.ledger.requests.filter((r) => r.method === 'POST');
    expect(sent.filter((r) => r.at > returnedAt)).toEqual([]);
    const { byId, counts } = readJournal(ws.state);
    // Every video submitted before the cancel was polled, downloaded and settled.
    for (let i = 0; i < VIDEOS; i++) expect(byId.get(`v${i}`)).toMatchObject({ state: 'downloaded', reservedUsd: 0 });
    expect(counts.cancelled).toBeGreaterThan(0);
    expect(counts.downloaded + counts.cancelled).toBe(VIDEOS + CHATS);
    expect(counts.downloaded).toBe(sent.length);
    expect(summary.spent_usd).toBeCloseTo(sim.ledger.chargesTotal('acct-1'), 9);
    // Each cancelled row has its results line, saying why.
    const lines = readFileSync(join(ws.out, 'results.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const cancelledLines = lines.filter((l) => l.error?.code === 'cancelled');
    expect(cancelledLines).toHaveLength(counts.cancelled);
    expect(cancelledLines[0].error.message).toBe(
      'cancelled by the operator (gbatch cancel): wrong prompts; never sent',
    );
    expect(lines).toHaveLength(VIDEOS + CHATS);

    // A later run sends nothing and revives nothing.
    const again = await runCli(args, { env });
    expect(again.code, again.stderr).toBe(0);
    // The line names the job in its command, as the run was started: pasted, it works.
    const said = /the job was cancelled .*`(gbatch retry .*)` sends the cancelled items again/.exec(again.stderr);
    expect(said?.[1], again.stderr).toBe(`gbatch retry --state ${ws.state} --cancelled`);
    expect(posts(sim.ledger)).toBe(sent.length);
    expect(readJournal(ws.state).counts.cancelled).toBe(counts.cancelled);

    // The operator's way back: the cancelled rows are pending again and the job's cancellation is lifted.
    const retry = await runAsPrinted(said![1]!, ws.dir, env);
    expect(retry.code, retry.out).toBe(0);
    expect(retry.out).toContain(`requeued ${counts.cancelled} item(s)`);
    expect(retry.out).toMatch(/the job's cancellation \(.*\) is lifted/);
    const resumed = await runCli([...args, '--concurrency', '8'], { env });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(readJournal(ws.state).counts).toMatchObject({ downloaded: VIDEOS + CHATS, cancelled: 0 });
    expect(posts(sim.ledger)).toBe(VIDEOS + CHATS);
  },
);

test.skipIf(!BUILT)(
  'cancel with no runner: pending and deferred rows are cancelled; a run then sends nothing and exits 0',
  async () => {
    const ws = workspace();
    const sim = await startSim();
    const env = gatewayEnv(sim.baseUrl, KEY);
    const manifest = writeJsonl(
      ws.path('rows.jsonl'),
      Array.from({ length: 4 }, (_, i) => chatRow(`c${i}`, `Name a moon, take ${i}`)),
    );
    const args = ['run', manifest, '--state', ws.state, '--out', ws.out, '--quiet', '--json'];
    const ingested = await runCli([...args, '--ingest-only'], { env });
    expect(ingested.code, ingested.stderr).toBe(0);

    const cancel = await runCli(['cancel', '--state', ws.state, '--json']);
    expect(cancel.code, cancel.stderr).toBe(0);
    expect(stdoutJson(cancel)).toEqual({
      exit_code: 0,
      journal: ws.state,
      cancelled_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      reason: '',
      cancelled: { pending: 4, deferred: 0 },
      in_flight: 0,
      answered: 0,
      runners: { acknowledged: [], late: [] },
      retry_command: `gbatch retry --state ${ws.state} --cancelled`,
    });

    const ran = await runCli(args, { env });
    expect(ran.code, ran.stderr).toBe(0);
    expect(stdoutJson(ran).counts).toMatchObject({ cancelled: 4, pending: 0 });
    expect(posts(sim.ledger)).toBe(0);
    const status = stdoutJson(await runCli(['status', '--state', ws.state, '--json']));
    expect(status.counts.cancelled).toBe(4);
    expect(status.cancelled).toMatchObject({ reason: '' });
    const text = await runCli(['status', '--state', ws.state]);
    expect(text.stdout).toMatch(
      /^Cancelled \S+: nothing more is sent; `gbatch retry --state \S+ --cancelled` sends the cancelled items again$/m,
    );
    const plan = await runCli(['plan', manifest, '--state', ws.state]);
    expect(plan.stdout).toMatch(
      /The job was cancelled \S+: `run` sends nothing until `gbatch retry --state \S+ --cancelled` lifts it\./,
    );
    expect(plan.stdout).toContain('0 row(s) still to send');
  },
);

const pg = usePgSchema('gbatch_cancel');

test.skipIf(!BUILT || !pgAvailable())(
  'PostgreSQL: cancel under a live runner; it acknowledges, sends nothing after, and settles its tasks',
  async () => {
    const ws = workspace();
    const sim = await startSim({ taskSeconds: 1, faults: { latencyMs: 150 } });
    const env = { ...gatewayEnv(sim.baseUrl, KEY), GBATCH_CANCEL_CHECK_MS: '100' };
    const rows = [
      videoRow('v0', 'A harbour at night'),
      ...Array.from({ length: 20 }, (_, i) => chatRow(`c${i}`, `Name a planet, take ${i}`)),
    ];
    const manifest = writeJsonl(ws.path('rows.jsonl'), rows);
    const live = startCli(
      [
        'run',
        manifest,
        '--journal',
        pg.url(),
        '--out',
        ws.out,
        '--concurrency',
        '1',
        '--poll-interval',
        '0.05',
        '--quiet',
        '--json',
      ],
      { env },
    );
    await sim.ledger.reached((ledger) => posts(ledger) >= 2);

    const cancel = await runCli(['cancel', 'rows', '--journal', pg.url()], { env });
    const returnedAt = Date.now();
    expect(cancel.code, cancel.stderr).toBe(0);
    expect(cancel.stdout).toContain(`runner pid ${live.child.pid} (`);
    const ended = await live.result;
    expect(ended.code, ended.stderr).toBe(0);
    const sent = sim.ledger.requests.filter((r) => r.method === 'POST');
    expect(sent.filter((r) => r.at > returnedAt)).toEqual([]);
    const summary = stdoutJson(ended);
    expect(summary.counts).toMatchObject({ downloaded: sent.length, cancelled: rows.length - sent.length, pending: 0 });
    expect(summary.counts.cancelled).toBeGreaterThan(0);
    expect(summary.counts.downloaded).toBeGreaterThan(1); // the video task in flight was settled too
    expect(summary.spent_usd).toBeCloseTo(sim.ledger.chargesTotal('acct-1'), 9);
  },
);
