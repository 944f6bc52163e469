// Configuration that only the journal shows to be wrong, and deadlines beyond what a timer or a Date
// holds: exit 2 with one line, before anything changes (the journal read before and after: job and
// budget, rows, event log, runs) and nothing sent (the gateway's own ledger); or the run as written.
import { writeFileSync } from 'node:fs';
import { expect, test } from 'vitest';
import { DEFAULTS } from '../../helpers/hostile-gateway.js';
import { BUILT, gatewayEnv, runCli, stdoutJson, type CliResult } from '../../helpers/cli.js';
import { journalSnapshot } from '../../helpers/journal-snapshot.js';
import { statesById } from '../../helpers/journal-read.js';
import { chatRow, videoRow, writeJsonl } from '../../helpers/manifests.js';
import { workspace, type Workspace } from '../../helpers/workspace.js';
import { hostileGateway, refusedWith } from '../../helpers/refusal.js';
import { openSyncJournal } from '../../helpers/journal-raw.js';

/** A pricing file that prices the chat model only. */
function chatOnlyPricing(ws: Workspace): string {
  const file = ws.path('chat-only.json');
  writeFileSync(file, JSON.stringify({ chat: { 'chat-small': { input_per_1m: 0.15, output_per_1m: 0.6 } } }));
  return file;
}

const UNPRICED = (state: string, more: number) =>
  new RegExp(
    `\\S*videos\\.jsonl:1 row 'v1' field 'model': no price for model 'video-mini' in the pricing table; add it with --pricing ` +
      `\\(pricing: .*chat-only\\.json; the journal holds this row ${state}, and ${more} more unpriced row\\(s\\) a run may send\\)$`,
  );

test.skipIf(!BUILT)(
  'deferred rows a new pricing file cannot price: plan and run refuse with the same line, nothing changed or sent',
  async () => {
    const ws = workspace();
    const gw = await hostileGateway();
    const env = gatewayEnv(gw.baseUrl, gw.key);
    const videos = writeJsonl(ws.path('videos.jsonl'), [videoRow('v1', 'a cat'), videoRow('v2', 'a dog')]);
    const chats = writeJsonl(ws.path('chats.jsonl'), [chatRow('c1', 'hi')]);
    const pricing = chatOnlyPricing(ws);
    // A budget too small for any video: both rows deferred, nothing sent.
    const first = await runCli(
      ['run', videos, '--state', ws.state, '--out', ws.out, '--budget', '0.001', '--progress', 'none'],
      { env, cwd: ws.dir },
    );
    expect(first.code, first.stderr).toBe(3);
    expect(statesById(ws.state)).toEqual({ v1: 'deferred', v2: 'deferred' });
    const before = journalSnapshot(ws.state);

    const [plan, planJson] = await Promise.all([
      runCli(['plan', chats, '--state', ws.state, '--pricing', pricing, '--budget', '5'], { cwd: ws.dir }),
      runCli(['plan', chats, '--state', ws.state, '--pricing', pricing, '--budget', '5', '--json'], { cwd: ws.dir }),
    ]);
    // One runner at a time per journal: the runs one after the other.
    const run = await runCli(
      ['run', chats, '--state', ws.state, '--out', ws.out, '--pricing', pricing, '--budget', '5', '--progress', 'none'],
      { env, cwd: ws.dir },
    );
    // The manifest the rows came from, unchanged: no ingest reads it again, the journal's rows are judged.
    const sameManifest = await runCli(
      [
        'run',
        videos,
        '--state',
        ws.state,
        '--out',
        ws.out,
        '--pricing',
        pricing,
        '--budget',
        '5',
        '--skip-invalid',
        '--progress',
        'none',
      ],
      { env, cwd: ws.dir },
    );

    refusedWith(plan, UNPRICED('deferred', 1));
    expect(plan.stdout).not.toMatch(/Fits/);
    expect(plan.stdout).toMatch(/`run` refuses the job/);
    expect(planJson.code).toBe(2);
    expect(stdoutJson(planJson)).toMatchObject({
      fits_budget: null,
      unpriced: expect.stringMatching(UNPRICED('deferred', 1)),
    });
    refusedWith(run, new RegExp(`^gbatch run: ${UNPRICED('deferred', 1).source}`));
    refusedWith(sameManifest, new RegExp(`^gbatch run: ${UNPRICED('deferred', 1).source}`));
    expect(journalSnapshot(ws.state)).toEqual(before);
    expect(gw.requests).toHaveLength(0);
  },
);

test.skipIf(!BUILT)(
  'pending rows of an earlier manifest a new pricing file cannot price: refused before the new manifest is ingested',
  async () => {
    const ws = workspace();
    const gw = await hostileGateway();
    const env = gatewayEnv(gw.baseUrl, gw.key);
    const videos = writeJsonl(ws.path('videos.jsonl'), [
      videoRow('v1', 'a cat'),
      videoRow('v2', 'a dog'),
      videoRow('v3', 'a cow'),
    ]);
    const chats = writeJsonl(ws.path('chats.jsonl'), [chatRow('c1', 'hi')]);
    const pricing = chatOnlyPricing(ws);
    const ingested = await runCli(['run', videos, '--state', ws.state, '--ingest-only', '--budget', '1'], {
      cwd: ws.dir,
    });
    expect(ingested.code, ingested.stderr).toBe(0);
    const before = journalSnapshot(ws.state);

    const [plan, run] = await Promise.all([
      runCli(['plan', chats, '--state', ws.state, '--pricing', pricing], { cwd: ws.dir }),
      runCli(['run', chats, '--state', ws.state, '--out', ws.out, '--pricing', pricing, '--progress', 'none'], {
        env,
        cwd: ws.dir,
      }),
    ]);

    refusedWith(plan, UNPRICED('pending', 2));
    refusedWith(run, new RegExp(`^gbatch run: ${UNPRICED('pending', 2).source}`));
    expect(journalSnapshot(ws.state)).toEqual(before);
    expect(gw.requests).toHaveLength(0);
  },
);

test.skipIf(!BUILT)(
  'a row made sendable during the run (resolve --resubmit) that the pricing file cannot price: exit 2 naming it, never sent',
  async () => {
    const ws = workspace();
    const rows = [
      chatRow('c1', 'one'),
      chatRow('c2', 'two'),
      chatRow('c3', 'three'),
      chatRow('x1', 'large', { model: 'chat-large' }),
    ];
    const manifest = writeJsonl(ws.path('rows.jsonl'), rows);
    const ingested = await runCli(['run', manifest, '--state', ws.state, '--ingest-only'], { cwd: ws.dir });
    expect(ingested.code, ingested.stderr).toBe(0);
    // x1 was mid-request when a runner died: the next run makes it uncertain, which no run sends by itself.
    const journal = openSyncJournal(ws.state);
    journal.apply([{ id: 'x1', event: 'submit', patch: { attempts: 1, reservedUsd: 0.01 }, detail: { attempt: 1 } }]);
    journal.close();
    let resolved: CliResult | undefined;
    // The operator's decision lands while the first request is on the wire (one at a time: --concurrency 1).
    const gw = await hostileGateway({
      routes: {
        chat: async (req, res, gateway) => {
          resolved ??= await runCli(['resolve', '--state', ws.state, 'x1', '--resubmit'], { cwd: ws.dir });
          await DEFAULTS.chat(req, res, gateway);
        },
      },
    });
    const run = await runCli(
      [
        'run',
        manifest,
        '--state',
        ws.state,
        '--out',
        ws.out,
        '--pricing',
        chatOnlyPricing(ws),
        '--concurrency',
        '1',
        '--progress',
        'none',
      ],
      { env: gatewayEnv(gw.baseUrl, gw.key), cwd: ws.dir },
    );

    expect(resolved?.code, resolved?.stderr).toBe(0);
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).not.toMatch(/internal error|Please report|\n\s+at /);
    expect(run.stderr.trim().split('\n').at(-1)).toMatch(
      new RegExp(
        "^gbatch run: \\S*rows\\.jsonl:4 row 'x1' field 'model': no price for model 'chat-large' in the pricing table; " +
          'add it with --pricing \\(it became sendable during this run, after the pricing check at its start: nothing more is sent\\)$',
      ),
    );
    expect(gw.requests.filter((r) => r.json?.model === 'chat-large')).toEqual([]);
    // The answers received are kept (results.jsonl is written from them by the next run); a row still
    // queued when the run stopped, and x1, wait unsent: nothing is left mid-request.
    const answered = expect.stringMatching(/^(succeeded|downloaded)$/);
    const answeredOrWaiting = expect.stringMatching(/^(succeeded|downloaded|pending)$/);
    expect(statesById(ws.state)).toEqual({ c1: answered, c2: answeredOrWaiting, c3: answeredOrWaiting, x1: 'pending' });
  },
);

/** A journal with two chat rows ingested, and the gateway to send them to. */
async function chatJob() {
  const ws = workspace();
  const gw = await hostileGateway();
  const env = gatewayEnv(gw.baseUrl, gw.key);
  const manifest = writeJsonl(ws.path('rows.jsonl'), [chatRow('c1', 'hi'), chatRow('c2', 'there')]);
  const ingested = await runCli(['run', manifest, '--state', ws.state, '--ingest-only'], { cwd: ws.dir });
  expect(ingested.code, ingested.stderr).toBe(0);
  return { ws, gw, env, manifest };
}

test.skipIf(!BUILT)(
  '--deadline 99999999999h and --if-running-timeout 1e300 are refused in one line, nothing changed or sent',
  async () => {
    const { ws, gw, env, manifest } = await chatJob();
    const before = journalSnapshot(ws.state);
    const [absurd, ifRunning] = await Promise.all([
      runCli(['run', manifest, '--state', ws.state, '--out', ws.out, '--deadline', '99999999999h'], {
        env,
        cwd: ws.dir,
      }),
      runCli(
        [
          'run',
          manifest,
          '--state',
          ws.state,
          '--out',
          ws.out,
          '--if-running',
          'wait',
          '--if-running-timeout',
          '1e300',
        ],
        { env, cwd: ws.dir },
      ),
    ]);
    refusedWith(
      absurd,
      /^gbatch run: `--deadline 99999999999h` is too far off: a deadline may lie at most 366 days ahead \(until \d{4}-\d\d-\d\dT[\d:.]+Z\)$/,
    );
    refusedWith(
      ifRunning,
      /^gbatch run: Expected `--if-running-timeout` to be a number from 0 to 31622400, got `1e300`$/,
    );
    expect(journalSnapshot(ws.state)).toEqual(before);
    expect(gw.requests).toHaveLength(0);
  },
);

test.skipIf(!BUILT)(
  "--deadline 25d (past one timer's 24.8 days) holds as written: the run sends everything and ends",
  async () => {
    const { ws, gw, env, manifest } = await chatJob();
    const long = await runCli(
      ['run', manifest, '--state', ws.state, '--out', ws.out, '--deadline', '25d', '--progress', 'none'],
      { env, cwd: ws.dir },
    );
    expect(long.code, long.stderr).toBe(0);
    expect(long.stderr).toMatch(/deadline: .* \(in 25d0?0h00m; /);
    expect(long.stderr).not.toMatch(/deadline reached|TimeoutOverflowWarning/);
    expect(statesById(ws.state)).toEqual({ c1: 'downloaded', c2: 'downloaded' });
    expect(gw.count('POST', '/v1/chat/completions')).toBe(2);
  },
);
