// Gateway trouble: bursts of 5xx with the gateway's envelope (it kept nothing: retried), downloads cut
// in half (retried), and an intermediary's 502/504 on a submission (it may have kept it: uncertain).

import { expect, onTestFinished, test } from 'vitest';
import { DEFAULT_BACKOFF } from '../../../src/core/retry.js';
import { createGatewayClient, type GatewayClient } from '../../../src/gateway/client.js';
import { readJournal } from '../../helpers/journal-read.js';
import { chatRow, videoRow, writeJsonl } from '../../helpers/manifests.js';
import { runInProcess } from '../../helpers/run.js';
import { duplicates, KEY, posts, startSim, tasksFor } from '../../helpers/sim.js';
import { sha256File, SIM_VIDEO_SHA256, workspace } from '../../helpers/workspace.js';

/** The runner's client with the default number of attempts but millisecond backoffs, to keep the test fast. */
function fastRetryingGateway(baseUrl: string): GatewayClient {
  const gateway = createGatewayClient({ baseUrl, apiKey: KEY, backoff: { ...DEFAULT_BACKOFF, baseMs: 5, maxMs: 50 } });
  onTestFinished(() => gateway.close());
  return gateway;
}

test('5xx bursts with the gateway envelope and truncated downloads: everything completes once, byte-identical', async () => {
  const ws = workspace();
  const sim = await startSim({
    seed: 5,
    faults: {
      errorRates: { submit: 0.3, poll: 0.3, content: 0.3, chat: 0.3, responses: 0.3 },
      errorFlavor: 'envelope',
      truncateDownloadRate: 0.5,
    },
  });
  const videos = Array.from({ length: 5 }, (_, i) => videoRow(`v${i}`, `Storm clouds over hill ${i}`));
  const chats = Array.from({ length: 4 }, (_, i) =>
    chatRow(`c${i}`, `Give me a word that rhymes with ${['cat', 'dog', 'sun', 'tree'][i]}.`),
  );
  const responses = [
    { id: 'r0', kind: 'responses', model: 'chat-small', input: 'Name a prime number.', max_output_tokens: 8 },
  ];
  const manifest = writeJsonl(ws.path('rows.jsonl'), [...videos, ...chats, ...responses]);

  const result = await runInProcess({
    sim,
    ws,
    manifests: [manifest],
    extra: { gateway: fastRetryingGateway(sim.baseUrl) },
  });

  const failed = sim.ledger.requests.filter((r) => r.status !== null && r.status >= 500);
  expect(failed.length, 'the simulator injected errors').toBeGreaterThan(0);
  // Each video is served in full once; every other 200 on the content endpoint was cut short.
  const contentAnswers = sim.ledger.requests.filter((r) => r.path.endsWith('/content') && r.status === 200);
  expect(contentAnswers.length, 'the simulator truncated downloads').toBeGreaterThan(videos.length);
  expect(result.exitCode).toBe(0);
  const { items } = readJournal(ws.state);
  expect(items.every((i) => i.state === 'downloaded')).toBe(true);
  for (const item of items.filter((i) => i.kind === 'video')) {
    expect(sha256File(item.outputPath!)).toBe(SIM_VIDEO_SHA256);
  }
  expect(duplicates(sim.ledger)).toEqual({});
  expect(Object.keys(sim.ledger.submissionsByPrompt())).toHaveLength(items.length);
  expect(sim.ledger.tasks).toHaveLength(videos.length);
  const actual = items.reduce((sum, i) => sum + (i.actualUsd ?? 0), 0);
  expect(actual).toBeCloseTo(sim.ledger.chargesTotal('acct-1'), 6);
});

test('an intermediary 502/504 on a video submission: uncertain, not retried, one task upstream', async () => {
  const ws = workspace();
  const sim = await startSim({ faults: { errorRates: { submit: 1 }, errorFlavor: 'intermediary' } });
  const manifest = writeJsonl(ws.path('rows.jsonl'), [videoRow('v', 'A glacier calving')]);

  const result = await runInProcess({ sim, ws, manifests: [manifest] });

  expect(result.exitCode).toBe(4);
  expect(readJournal(ws.state).byId.get('v')!.state).toBe('uncertain');
  expect(readJournal(ws.state).byId.get('v')!.lastError?.status).toBeOneOf([502, 504]);
  expect(posts(sim.ledger)).toBe(1);
  expect(tasksFor(sim.ledger, 'A glacier calving')).toHaveLength(1);

  // A later run does not send it again either.
  sim.faults.errorRates = {};
  const again = await runInProcess({ sim, ws, manifests: [manifest] });
  expect(again.exitCode).toBe(4);
  expect(posts(sim.ledger)).toBe(1);
});

test('an intermediary 502/504 on a chat call: uncertain, not retried (the call was charged)', async () => {
  const ws = workspace();
  const sim = await startSim({ faults: { errorRates: { chat: 1 }, errorFlavor: 'intermediary' } });
  const manifest = writeJsonl(ws.path('rows.jsonl'), [chatRow('c', 'Spell "journal" backwards.')]);

  const result = await runInProcess({ sim, ws, manifests: [manifest] });

  expect(result.exitCode).toBe(4);
  expect(readJournal(ws.state).byId.get('c')!.state).toBe('uncertain');
  expect(posts(sim.ledger)).toBe(1);
  expect(sim.ledger.submissionsByPrompt()).toEqual({ 'Spell "journal" backwards.': 1 });
});

test('a download that keeps failing past one round of attempts is tried again in the same run', async () => {
  const ws = workspace();
  const sim = await startSim({ faults: { truncateDownloadRate: 1 } });
  const manifest = writeJsonl(ws.path('rows.jsonl'), [videoRow('v', 'A lantern on a pier')]);
  const gateway = fastRetryingGateway(sim.baseUrl);
  const contentRequests = () => sim.ledger.requests.filter((r) => r.path.endsWith('/content')).length;

  const running = runInProcess({ sim, ws, manifests: [manifest], extra: { gateway } });
  // One round is 3 attempts at the content endpoint and 3 at result_url; the 7th request is a new round.
  await Promise.race([sim.ledger.reached(() => contentRequests() > 6), running]);
  expect(contentRequests(), 'the run tried again after a failed round').toBeGreaterThan(6);
  sim.faults.truncateDownloadRate = 0;
  const result = await running;

  expect(result.exitCode).toBe(0);
  const item = readJournal(ws.state).byId.get('v')!;
  expect(item.state).toBe('downloaded');
  expect(sha256File(item.outputPath!)).toBe(SIM_VIDEO_SHA256);
});

test('a video task that fails upstream is refunded: the item is failed at no cost, exit 1', async () => {
  const ws = workspace();
  const sim = await startSim({ faults: { failRate: 1 } });
  const manifest = writeJsonl(ws.path('rows.jsonl'), [
    videoRow('v', 'A collapsing soufflé'),
    chatRow('c', 'Name a cheese.'),
  ]);

  const result = await runInProcess({ sim, ws, manifests: [manifest] });

  expect(result.exitCode).toBe(1);
  const { byId } = readJournal(ws.state);
  expect(byId.get('v')).toMatchObject({ state: 'failed', actualUsd: 0, reservedUsd: 0, outputPath: null });
  expect(byId.get('v')!.lastError!.message).toMatch(/refunded/);
  expect(byId.get('c')!.state).toBe('downloaded');
  expect(sim.ledger.tasks[0]!.state).toBe('FAILURE');
  expect(byId.get('c')!.actualUsd).toBeCloseTo(sim.ledger.chargesTotal('acct-1'), 6);
});
