// A night stopped while refunded video failures wait for their --retry-failed retry: the notification does
// not tell anyone to `gbatch retry --failed` rows the next night sends again on its own. It names them as
// needing nothing, and gives the command only for the row no run sends again (a 403 refusal); the next
// night then does send the failed videos by itself.
import { expect, test } from 'vitest';
import { BUILT, gatewayEnv, runCli, startCli } from '../helpers/cli.js';
import { chatRow, videoRow, writeJsonl } from '../helpers/manifests.js';
import { KEY, startSim } from '../helpers/sim.js';
import { workspace } from '../helpers/workspace.js';
import { startHook } from '../helpers/webhook-server.js';

test.skipIf(!BUILT)(
  'failed rows the policy retries get no retry command; the next night sends them on its own',
  async () => {
    const ws = workspace();
    // Every video task fails upstream (refunded); chat-large is not the account's (403, rejected for good).
    const sim = await startSim({
      accounts: [{ key: KEY, balanceUsd: 100, models: ['chat-small', 'video-mini'] }],
      faults: { failRate: 1 },
      taskSeconds: 0.1,
    });
    const hook = await startHook([]);
    const manifest = writeJsonl(ws.path('nightly.jsonl'), [
      videoRow('v1', 'Fog over a harbour'),
      videoRow('v2', 'A fox in snow'),
      chatRow('c1', 'hello', { model: 'chat-large' }),
    ]);
    const env = gatewayEnv(sim.baseUrl, KEY);
    const args = ['run', manifest, '--budget', '5', '--poll-interval', '0.05', '--notify', hook.url];
    // The retries wait an hour: the night is stopped first, as a deadline or a signal stops a real one.
    const night = startCli([...args, '--retry-backoff', '3600', '--progress', 'plain'], { cwd: ws.dir, env });
    await night.stderrMatching(/ settling \| 3\/3 finished .*failed 2/);
    night.child.kill('SIGINT');
    await night.result;

    const ended = hook.received.map((r) => r.body).find((b) => b.event === 'run-ended');
    expect(ended.counts).toMatchObject({ failed: 2, rejected: 1 });
    expect(ended.attention).toEqual([
      `1 item(s) refused by the gateway: fix the cause, then send them again (\`gbatch retry ${manifest} --rejected\`)`,
    ]);
    expect(ended.text).toContain('2 failed: the next run sends them again on its own (--retry-failed); nothing to do');
    expect(ended.text).not.toContain('--failed');
    expect(ended.auto_retried).toEqual({ failed: 2, rejected: 0 });

    // The next night, the gateway well again: both videos are sent with no one's word.
    sim.faults.failRate = 0;
    const next = await runCli(args, { cwd: ws.dir, env });
    expect(next.stderr).toMatch(/sending 2 item\(s\) an earlier run left failed/);
    const again = hook.received.map((r) => r.body).filter((b) => b.event === 'run-ended');
    expect(again.at(-1).counts).toMatchObject({ downloaded: 2, failed: 0, rejected: 1 });
  },
  30_000,
);
