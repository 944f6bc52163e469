// The run's own retry policy (--retry-failed): a video task that FAILED was refunded (spec 8.3.4) and a
// 408/425 refusal kept nothing, so the run sends each again by itself, as a new attempt that reserves
// again under --budget; a definite refusal (400) and anything uncertain are never part of it.
import { expect, onTestFinished, test } from 'vitest';
import { BUILT, gatewayEnv, runCli, stdoutJson } from '../../helpers/cli.js';
import { chatRow, videoRow, writeJsonl } from '../../helpers/manifests.js';
import { readJournal } from '../../helpers/journal-read.js';
import { workspace } from '../../helpers/workspace.js';
import {
  DEFAULTS,
  errorEnvelope,
  sendJson,
  startHostileGateway,
  type HostileGateway,
  type HostileTask,
} from '../../helpers/hostile-gateway.js';
import { openSyncJournal } from '../../helpers/journal-raw.js';

function events(state: string, id: string): Array<{ event: string; detail: unknown }> {
  const journal = openSyncJournal(state, { readonly: true });
  try {
    return journal.events(id);
  } finally {
    journal.close();
  }
}

/** Tasks per prompt, in the order the gateway created them, with how each ended. */
function taskEnds(gw: HostileGateway): Record<string, string[]> {
  const ends: Record<string, string[]> = {};
  for (const task of gw.tasks.values()) (ends[task.prompt] ??= []).push(task.status);
  return ends;
}

/** Chat POSTs per first message, as the gateway received them. */
function chatSends(gw: HostileGateway): Record<string, number> {
  const sends: Record<string, number> = {};
  for (const req of gw.requests) {
    if (req.method !== 'POST' || !req.path.startsWith('/v1/chat/completions')) continue;
    const prompt = String(req.json?.messages?.[0]?.content ?? '?');
    sends[prompt] = (sends[prompt] ?? 0) + 1;
  }
  return sends;
}

test.skipIf(!BUILT)(
  'refunded video failures and a 408 are sent again in the same run: exit 0, no operator, spend under --budget',
  async () => {
    const ws = workspace();
    const failedOnce = new Set<string>();
    let timeouts = 1;
    const gw = await startHostileGateway({
      // Each prompt's first task fails upstream (refunded); its second succeeds.
      failReason: (task: HostileTask) => {
        if (failedOnce.has(task.prompt)) return undefined;
        failedOnce.add(task.prompt);
        return 'upstream render failed';
      },
      routes: {
        chat: (req, res, gateway) => {
          if (timeouts-- > 0)
            return sendJson(res, 408, errorEnvelope('request timeout', 'invalid_request_error', 'timeout'));
          return DEFAULTS.chat(req, res, gateway);
        },
      },
    });
    onTestFinished(() => gw.close());
    const manifest = writeJsonl(ws.path('rows.jsonl'), [
      videoRow('v1', 'A lighthouse at dusk'),
      videoRow('v2', 'A kite over dunes'),
      chatRow('c', 'Name a comet.'),
    ]);
    const budget = 2;
    const run = await runCli(
      [
        'run',
        manifest,
        '--state',
        ws.state,
        '--out',
        ws.out,
        '--poll-interval',
        '0.02',
        '--retry-backoff',
        '0.05',
        '--budget',
        String(budget),
        '--json',
        '--quiet',
      ],
      { env: gatewayEnv(gw.baseUrl, gw.key) },
    );

    expect(run.code, run.stderr).toBe(0);
    const { byId } = readJournal(ws.state);
    for (const id of ['v1', 'v2', 'c']) expect(byId.get(id)).toMatchObject({ state: 'downloaded', attempts: 2 });
    // The gateway's own record: each failed task refunded (never billed), its row sent once more.
    expect(taskEnds(gw)).toEqual({
      'A lighthouse at dusk': ['FAILURE', 'SUCCESS'],
      'A kite over dunes': ['FAILURE', 'SUCCESS'],
    });
    expect(gw.charges.filter((c) => c.kind === 'video')).toHaveLength(2);
    expect(chatSends(gw)).toEqual({ 'Name a comet.': 2 });
    expect(gw.billedUsd()).toBeLessThanOrEqual(budget);
    const summary = stdoutJson(run);
    expect(summary.spent_usd).toBeLessThanOrEqual(budget);
    expect([...summary.auto_retried].sort()).toEqual(['c', 'v1', 'v2']);
    // Recorded as `gbatch retry` records it: a requeue whose detail keeps the failed attempt.
    const requeue = events(ws.state, 'v1').find((e) => e.event === 'requeue');
    expect(requeue?.detail).toMatchObject({ by: 'retry-policy', retry: 1, previous: { state: 'failed', attempts: 1 } });
    expect(run.stderr).toContain(
      "sending video item 'v1' again (retry 1 of 2, --retry-failed): its task failed and was refunded",
    );
  },
);

test.skipIf(!BUILT)(
  '--retry-failed N bounds the attempts; a definite refusal (400) is never sent again by the policy',
  async () => {
    const ws = workspace();
    const gw = await startHostileGateway({
      failReason: () => 'upstream render failed',
      routes: { chat: (_req, res) => sendJson(res, 400, errorEnvelope('bad request: max_tokens too large')) },
    });
    onTestFinished(() => gw.close());
    const manifest = writeJsonl(ws.path('rows.jsonl'), [videoRow('v', 'A glass whale'), chatRow('c', 'Name a moon.')]);
    const run = await runCli(
      [
        'run',
        manifest,
        '--state',
        ws.state,
        '--out',
        ws.out,
        '--poll-interval',
        '0.02',
        '--retry-failed',
        '1',
        '--retry-backoff',
        '0.05',
        '--quiet',
      ],
      { env: gatewayEnv(gw.baseUrl, gw.key) },
    );

    expect(run.code, run.stderr).toBe(1);
    expect(taskEnds(gw)).toEqual({ 'A glass whale': ['FAILURE', 'FAILURE'] }); // 1 + 1 retry, each refunded
    expect(gw.billedUsd()).toBe(0);
    expect(chatSends(gw)).toEqual({ 'Name a moon.': 1 });
    expect(readJournal(ws.state).byId.get('v')).toMatchObject({
      state: 'failed',
      attempts: 2,
      actualUsd: 0,
      reservedUsd: 0,
    });
    expect(readJournal(ws.state).byId.get('c')).toMatchObject({ state: 'rejected', attempts: 1 });
  },
);

test.skipIf(!BUILT)(
  "what an earlier run left failed (refunded) is sent again at the next run's start; an abandoned row, a 400 and an orphaned row are not",
  async () => {
    const ws = workspace();
    let failing = true;
    let timeouts = 1;
    const gw = await startHostileGateway({
      failReason: () => (failing ? 'upstream render failed' : undefined),
      routes: {
        chat: (req, res, gateway) => {
          const prompt = String(
            (req as { json?: { messages?: Array<{ content?: string }> } }).json?.messages?.[0]?.content ?? '',
          );
          if (prompt === 'Name a planet.') return sendJson(res, 400, errorEnvelope('bad request'));
          if (timeouts-- > 0)
            return sendJson(res, 408, errorEnvelope('request timeout', 'invalid_request_error', 'timeout'));
          return DEFAULTS.chat(req, res, gateway);
        },
      },
    });
    onTestFinished(() => gw.close());
    const rows = [
      videoRow('v', 'A paper boat'),
      videoRow('gone', 'A tin robot'),
      videoRow('dropped', 'A red balloon'),
      chatRow('slow', 'Name a comet.'),
      chatRow('bad', 'Name a planet.'),
    ];
    const manifest = writeJsonl(ws.path('rows.jsonl'), rows);
    const env = gatewayEnv(gw.baseUrl, gw.key);
    const run = (...extra: string[]) =>
      runCli(
        [
          'run',
          manifest,
          '--state',
          ws.state,
          '--out',
          ws.out,
          '--poll-interval',
          '0.02',
          '--retry-backoff',
          '0.05',
          '--quiet',
          ...extra,
        ],
        { env },
      );

    // The operator gives up on `dropped` before it is ever sent.
    expect((await run('--ingest-only')).code).toBe(0);
    const abandoned = await runCli(['resolve', 'dropped', '--abandon', '--state', ws.state], { env });
    expect(abandoned.code, abandoned.stderr).toBe(0);
    // Night 1, without the policy (as if its retries were used up or cut by a deadline): v and gone fail, slow gets a
    // 408.
    const first = await run('--retry-failed', '0');
    expect(first.code, first.stderr).toBe(1);
    expect(readJournal(ws.state).byId.get('slow')).toMatchObject({ state: 'rejected' });
    // Night 2: `gone` is no longer in the manifest; the tasks do not fail any more; the default policy.
    writeJsonl(
      manifest,
      rows.filter((r) => r.id !== 'gone'),
    );
    failing = false;
    const second = await run('--json');
    expect(second.stderr).toMatch(
      /sending 2 item\(s\) an earlier run left failed \(refunded\) or refused with a transient code again \(--retry-failed, retry 1 of 2\): 'v', 'slow'/,
    );
    const { byId } = readJournal(ws.state);
    expect(byId.get('v')).toMatchObject({ state: 'downloaded', attempts: 2 });
    expect(byId.get('slow')).toMatchObject({ state: 'downloaded', attempts: 2 });
    expect(byId.get('gone')).toMatchObject({ state: 'failed', attempts: 1 });
    expect(byId.get('dropped')).toMatchObject({ state: 'failed', attempts: 0 });
    expect(byId.get('bad')).toMatchObject({ state: 'rejected', attempts: 1 });
    expect(taskEnds(gw)).toEqual({ 'A paper boat': ['FAILURE', 'SUCCESS'], 'A tin robot': ['FAILURE'] });
    expect(chatSends(gw)).toEqual({ 'Name a comet.': 2, 'Name a planet.': 1 });
    expect([...stdoutJson(second).auto_retried].sort()).toEqual(['slow', 'v']);
    // `dropped` (abandoned) and `bad` (a 400) wait for the operator: exit 1.
    expect(second.code, second.stderr).toBe(1);
  },
);
