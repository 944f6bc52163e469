// A served batch is run again and again while work remains: here a video whose download keeps failing holds
// it open. Another video's task fails every time (refunded): --retry-failed's allowance (2) is the row's in
// all, so it is sent 3 times whichever run sends it, and the download's failed rounds are bounded in all too:
// the batch ends, both rows in the error file with their cause, and gbatch's report equals the gateway's bill.
import { describe, expect, it, onTestFinished } from 'vitest';
import { MAX_DOWNLOAD_FAILURES } from '../../../src/core/download-tries.js';
import { BUILT, runCli, stdoutJson } from '../../helpers/cli.js';
import {
  DEFAULTS,
  errorEnvelope,
  HOSTILE_KEY,
  sendJson,
  startHostileGateway,
  type HostileGateway,
} from '../../helpers/hostile-gateway.js';
import { batchEnd, client, filesOf, startServe, submitBatch, videoLine } from '../../helpers/serve.js';
import { workspace } from '../../helpers/workspace.js';

const FAILING = 'a render that always fails';
const UNDELIVERED = 'a video that never arrives';

const tasksOf = (gw: HostileGateway, prompt: string) => [...gw.tasks.values()].filter((t) => t.prompt === prompt);

describe.skipIf(!BUILT)('gbatch serve: a batch run again', () => {
  it('sends a failing video 1 + --retry-failed times in all, and ends a download that keeps failing', async () => {
    const gw = await startHostileGateway({
      failReason: (task) => (task.prompt === FAILING ? 'upstream render failed' : undefined),
      routes: {
        videoContent: (req, res, g) => {
          const task = g.tasks.get(decodeURIComponent(req.path.split('/')[3] ?? ''));
          if (task?.prompt === UNDELIVERED) return sendJson(res, 503, errorEnvelope('storage unavailable'));
          return DEFAULTS.videoContent(req, res, g);
        },
      },
    });
    onTestFinished(() => gw.close());
    const ws = workspace('gbatch-serve-');
    const data = ws.path('data');
    const server = await startServe({
      data,
      gateway: gw.baseUrl,
      // The download's attempts back off from GBATCH_GATEWAY_BACKOFF_MS (500 ms by default), its rounds
      // from the poll interval: both at a floor, the bounds are reached in a fraction of a second of waits.
      args: ['--poll-interval', '0.01'],
      env: { GATEWAY_API_KEY: HOSTILE_KEY, GBATCH_SERVE_TEST_RETRY_BACKOFF_S: '0.05', GBATCH_GATEWAY_BACKOFF_MS: '10' },
    });
    const openai = client(server);
    const created = await submitBatch(
      openai,
      ws.path('in.jsonl'),
      [videoLine('fails', FAILING), videoLine('undelivered', UNDELIVERED)],
      { endpoint: '/v1/video/generations' },
    );

    // Ends when the batch ends, or as soon as the failing row got a fourth task (more than its allowance).
    const end = await Promise.race([
      batchEnd(server, created.id),
      gw.reached((g) => tasksOf(g, FAILING).length > 3).then(() => 'sent past the allowance'),
    ]);
    expect(tasksOf(gw, FAILING).map((t) => t.status)).toEqual(['FAILURE', 'FAILURE', 'FAILURE']);
    expect(end).toBe('completed');
    // Its download was tried by more than one run of the batch, and no more than the bound in all.
    expect(server.stderr()).toContain(`${created.id}: download of request 'undelivered' failed: `);
    const contentGets = gw.count('GET', `/v1/videos/${tasksOf(gw, UNDELIVERED)[0]!.id}/content`);
    expect(contentGets).toBeGreaterThan(0);
    expect(contentGets).toBeLessThanOrEqual(MAX_DOWNLOAD_FAILURES * 6);
    expect(tasksOf(gw, UNDELIVERED)).toHaveLength(1);

    const batch = await openai.batches.retrieve(created.id);
    const { output, errors } = await filesOf(openai, batch);
    expect(output).toEqual([]);
    const byId = new Map(errors.map((line) => [line.custom_id, line.error as { code: string; message: string }]));
    expect(byId.get('fails')).toEqual({ code: 'failed', message: expect.stringContaining('upstream render failed') });
    expect(byId.get('undelivered')).toEqual({
      code: 'failed',
      message: expect.stringMatching(
        new RegExp(`^the video could not be downloaded in ${MAX_DOWNLOAD_FAILURES} rounds of tries .*: .*503`),
      ),
    });

    // The undelivered video was billed: gbatch books what the gateway billed.
    const report = await runCli([
      'report',
      created.id,
      '--state',
      `${data}/journals/${created.id}.db`,
      '--format',
      'json',
    ]);
    expect(report.code, report.stderr).toBe(0);
    expect(gw.billedUsd()).toBeGreaterThan(0);
    expect(stdoutJson(report).totals.actual_usd).toBeCloseTo(gw.billedUsd(), 9);
  });
});
