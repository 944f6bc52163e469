// The content endpoint answers 400 while a task is "not ready for download" (spec 3.1), and a real gateway
// may still say so for a while after the task reported SUCCESS: that is a state to wait out with backoff,
// not a refusal that gives the video up for the run.
import { expect, onTestFinished, test } from 'vitest';
import { BUILT, gatewayEnv, runCli, stdoutJson } from '../../helpers/cli.js';
import { readJournal } from '../../helpers/journal-read.js';
import { videoRow, writeJsonl } from '../../helpers/manifests.js';
import { workspace } from '../../helpers/workspace.js';
import { DEFAULTS, errorEnvelope, sendJson, startHostileGateway } from '../../helpers/hostile-gateway.js';

test.skipIf(!BUILT)(
  'content answering 400 "not ready" for the first downloads after SUCCESS: retried with backoff, the video is downloaded, exit 0',
  async () => {
    const ws = workspace();
    const NOT_READY = 4; // more than one round's attempts: the lane's rounds wait it out too
    const refusals = new Map<string, number>();
    const gw = await startHostileGateway({
      routes: {
        videoContent: (req, res, g) => {
          const id = decodeURIComponent(req.path.split('/')[3] ?? '');
          const seen = refusals.get(id) ?? 0;
          if (g.tasks.get(id)?.status === 'SUCCESS' && seen < NOT_READY) {
            refusals.set(id, seen + 1);
            sendJson(res, 400, errorEnvelope(`task ${id} not ready for download`));
            return;
          }
          DEFAULTS.videoContent(req, res, g);
        },
      },
    });
    onTestFinished(() => gw.close());
    const manifest = writeJsonl(ws.path('rows.jsonl'), [
      videoRow('v1', 'A comet'),
      videoRow('v2', 'A harbour at dawn'),
    ]);
    const run = await runCli(
      ['run', manifest, '--state', ws.state, '--out', ws.out, '--poll-interval', '0.02', '--json', '--quiet'],
      { env: gatewayEnv(gw.baseUrl, gw.key) },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(stdoutJson(run).counts).toMatchObject({ downloaded: 2 });
    expect([...refusals.values()]).toEqual([NOT_READY, NOT_READY]);
    expect(gw.count('GET', '/v1/videos/')).toBe(2 * (NOT_READY + 1));
    for (const id of ['v1', 'v2']) expect(readJournal(ws.state).byId.get(id)!.bytes).toBe(4096);
  },
);
