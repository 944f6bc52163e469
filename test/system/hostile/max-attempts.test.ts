// --max-attempts is an allowance per run: a row an earlier run left pending after its attempts (the
// gateway kept answering 503 with its own envelope, nothing kept) gets the full allowance again.
import { expect, onTestFinished, test } from 'vitest';
import { BUILT, gatewayEnv, runCli } from '../../helpers/cli.js';
import { chatRow, writeJsonl } from '../../helpers/manifests.js';
import { readJournal } from '../../helpers/journal-read.js';
import { workspace } from '../../helpers/workspace.js';
import { DEFAULTS, errorEnvelope, sendJson, startHostileGateway } from '../../helpers/hostile-gateway.js';

test.skipIf(!BUILT)(
  'a row left pending by an earlier run after its attempts gets --max-attempts again in the next run',
  async () => {
    const ws = workspace();
    let refusals = 3;
    const gw = await startHostileGateway({
      routes: {
        chat: (req, res, gateway) => {
          if (refusals-- > 0) return sendJson(res, 503, errorEnvelope('no upstream available', 'upstream_api_error'));
          return DEFAULTS.chat(req, res, gateway);
        },
      },
    });
    onTestFinished(() => gw.close());
    const manifest = writeJsonl(ws.path('rows.jsonl'), [chatRow('c1', 'Name a river.')]);
    const args = ['run', manifest, '--state', ws.state, '--out', ws.out, '--max-attempts', '2', '--quiet'];
    const env = gatewayEnv(gw.baseUrl, gw.key);

    const first = await runCli(args, { env });
    expect(first.code, first.stderr).toBe(75); // two 503s: left pending for a later run
    expect(first.stderr).toContain('gateway still failing after 2 attempts');
    expect(gw.count('POST', '/v1/chat/completions')).toBe(2);

    const second = await runCli(args, { env });
    expect(second.code, second.stderr).toBe(0); // attempt 3 gets a 503, attempt 4 the answer
    expect(gw.count('POST', '/v1/chat/completions')).toBe(4);
    expect(readJournal(ws.state).byId.get('c1')).toMatchObject({ state: 'downloaded', attempts: 4 });
  },
);
