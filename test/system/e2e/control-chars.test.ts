// Issue 10 item 6: ids, prompts and gateway messages that carry terminal control sequences (clear the
// screen, set the title, carriage return, backspace, bell, a right-to-left override) are printed by
// plan, run, status and report (table) as visible escapes; no raw control byte reaches the terminal.

import { expect, onTestFinished, test } from 'vitest';
import { DEFAULTS, errorEnvelope, sendJson, startHostileGateway } from '../../helpers/hostile-gateway.js';
import { BUILT, gatewayEnv, runCli, type CliResult } from '../../helpers/cli.js';
import { readJournal } from '../../helpers/journal-read.js';
import { chatRow, videoRow, writeJsonl } from '../../helpers/manifests.js';
import { workspace } from '../../helpers/workspace.js';

const CLEAR = '\u001b[2J';
const TITLE = '\u001b]0;pwned\u0007';
const NASTY = `${CLEAR}${TITLE}\r\b\u0007\u202e`;
/** What gbatch prints for NASTY. */
const SHOWN = '\\x1b[2J\\x1b]0;pwned\\x07\\x0d\\x08\\x07\\u202e';

/** Any control or invisible format character other than the newline that ends each line. */
const RAW = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2066-\u2069\ufeff]/;

function expectPrintable(result: CliResult, what: string): void {
  expect(RAW.exec(result.stdout)?.[0], `raw control character on stdout of ${what}`).toBeUndefined();
  expect(RAW.exec(result.stderr)?.[0], `raw control character on stderr of ${what}`).toBeUndefined();
}

test.skipIf(!BUILT)(
  'control characters in ids, prompts and gateway messages are printed escaped by plan, run, status and report',
  async () => {
    const ws = workspace();
    const gw = await startHostileGateway({
      failReason: () => `upstream failed ${NASTY}`,
      routes: {
        chat: (req, res, g) => {
          if (!JSON.stringify(req.json?.messages ?? '').includes('refuse')) return DEFAULTS.chat(req, res, g);
          sendJson(res, 400, errorEnvelope(`bad prompt ${NASTY}`));
        },
      },
    });
    onTestFinished(() => gw.close());
    const manifest = writeJsonl(ws.path('rows.jsonl'), [
      chatRow(`c-ok${NASTY}`, `Say hi ${NASTY}`),
      chatRow(`c-refused${CLEAR}`, `Please refuse ${NASTY}`),
      videoRow(`v-fails\u202eevil`, `A storm ${NASTY}`),
    ]);
    const broken = writeJsonl(ws.path('broken.jsonl'), [
      { id: `bad${NASTY}`, kind: `chat${CLEAR}`, model: 'chat-small', messages: [{ role: 'user', content: 'x' }] },
    ]);
    const env = gatewayEnv(gw.baseUrl, gw.key);
    const common = ['--state', ws.state, '--out', ws.out, '--poll-interval', '0.02', '--retry-failed', '0'];

    const plan = await runCli(['plan', manifest]);
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toContain(`c-ok${SHOWN}`);
    expectPrintable(plan, 'plan');

    const planBroken = await runCli(['plan', broken]);
    expect(planBroken.code).toBe(2);
    expect(planBroken.stderr).toContain('\\u001b[2J'); // the id, quoted as JSON
    expect(planBroken.stderr).toContain(`field 'kind'`);
    expectPrintable(planBroken, 'plan of an invalid row');
    const runBroken = await runCli(['run', broken, '--state', ws.path('state', 'broken.db'), '--out', ws.out], { env });
    expect(runBroken.code).toBe(2);
    expectPrintable(runBroken, 'run of an invalid row');

    const run = await runCli(['run', manifest, ...common], { env });
    expect(run.code, run.stderr).toBe(1);
    const items = readJournal(ws.state).byId;
    expect(items.get(`v-fails\u202eevil`)!.lastError!.message).toContain(NASTY); // the journal keeps the text as sent
    expect(run.stdout).toContain(`v-fails\\u202eevil`);
    expectPrintable(run, 'run');

    const status = await runCli(['status', '--state', ws.state]);
    expect(status.code).toBe(0);
    expect(status.stdout).toContain(`upstream failed ${SHOWN}`);
    expect(status.stdout).toContain('bad prompt \\x1b[2J\\x1b]0;pwned\\x07'); // (a CR in an error becomes a space)
    expectPrintable(status, 'status');

    const report = await runCli(['report', '--state', ws.state, '--format', 'table']);
    expect(report.code).toBe(0);
    expect(report.stdout).toContain(`c-refused\\x1b[2J`);
    expect(report.stdout).toContain('upstream failed \\x1b[2J');
    expectPrintable(report, 'report');

    const unknown = await runCli([`nosuch${NASTY}`]);
    expect(unknown.code).toBe(2);
    expectPrintable(unknown, 'an unknown command');
  },
);
