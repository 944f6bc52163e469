// Bad manifests: `plan` names every error (file:line, id, field); `run` refuses and sends nothing;
// `run --skip-invalid` sends the valid rows only and reports the others as `invalid`.

import { writeFileSync } from 'node:fs';
import { expect, test } from 'vitest';
import { BUILT, gatewayEnv, runCli, stdoutJson } from '../../helpers/cli.js';
import { reportItemOf, reportJson } from '../../helpers/report.js';
import { readJournal } from '../../helpers/journal-read.js';
import { writeCsv } from '../../helpers/manifests.js';
import { KEY, posts, startSim } from '../../helpers/sim.js';
import { workspace, type Workspace } from '../../helpers/workspace.js';
import { runAsPrinted, suggested } from '../../helpers/suggested.js';

const VALID = ['ok-1', 'ok-2', 'j-ok', 'j-ok-2'];

function writeBadJob(ws: Workspace): { job: string; csv: string; jsonl: string } {
  const csv = writeCsv(
    ws.path('bad.csv'),
    ['id', 'kind', 'model', 'prompt', 'resolution', 'duration', 'temperature'],
    [
      { id: 'ok-1', kind: 'chat', model: 'chat-small', prompt: 'Hello there' }, // line 2
      { id: 'bad-kind', kind: 'audio', model: 'chat-small', prompt: 'Sing' }, // line 3
      { id: 'blank-prompt', kind: 'video', model: 'video-mini', prompt: '   ', resolution: '480p', duration: 2 }, // line 4
      { id: 'too-long', kind: 'video', model: 'video-mini', prompt: 'A long clip', resolution: '480p', duration: 5000 }, // line 5
      { id: 'no-4k', kind: 'video', model: 'video-mini', prompt: 'A crisp clip', resolution: '4k', duration: 2 }, // line 6
      { id: 'too-hot', kind: 'chat', model: 'chat-small', prompt: 'Be wild', temperature: 3 }, // line 7
      { id: 'ok-2', kind: 'video', model: 'video-mini', prompt: 'A valid clip', resolution: '480p', duration: 2 }, // line 8
      { id: '', kind: 'chat', model: 'chat-small', prompt: 'No id here' }, // line 9
    ],
  );
  const jsonl = ws.path('bad.jsonl');
  writeFileSync(
    jsonl,
    [
      '{"id": "j-ok", "kind": "chat", "model": "chat-small", "messages": [{"role": "user", "content": "hi"}]}',
      '{"id": "broken", "kind": "chat",',
      '{"id": "j-ok", "kind": "chat", "model": "chat-small", "messages": [{"role": "user", "content": "hi again"}]}',
      '{"id": "j-ok-2", "kind": "video", "model": "video-mini", "prompt": "A second valid clip", "resolution": "480p", "duration": 2}',
      '{"custom_id": "wrong-url", "method": "POST", "url": "/v1/images", "body": {"model": "chat-small"}}',
    ].join('\n') + '\n',
  );
  const job = ws.path('bad.json');
  writeFileSync(job, JSON.stringify({ name: 'bad', manifest: ['bad.csv', 'bad.jsonl'] }));
  return { job, csv, jsonl };
}

test.skipIf(!BUILT)('plan lists every error with file:line, id and field, and exits 2', async () => {
  const ws = workspace();
  const { job, csv, jsonl } = writeBadJob(ws);
  const plan = await runCli(['plan', job]);
  expect(plan.code).toBe(2);
  const expected: Array<[string, RegExp]> = [
    [`${csv}:3 row 'bad-kind' field 'kind': `, /audio/],
    [`${csv}:4 row 'blank-prompt' field 'prompt': `, /./],
    [`${csv}:5 row 'too-long' field 'duration': `, /5000/],
    [`${csv}:6 row 'no-4k' field 'resolution': `, /4k/],
    [`${csv}:7 row 'too-hot' field 'temperature': `, /3/],
    [`${csv}:9 field 'id': `, /required/],
    [`${jsonl}:2: `, /JSON/],
    [`${jsonl}:3 row 'j-ok' field 'id': `, /duplicate/],
    [`${jsonl}:5 row 'wrong-url' field 'url': `, /\/v1\/images/],
  ];
  const lines = plan.stderr.trim().split('\n');
  expect(lines).toHaveLength(expected.length);
  for (const [prefix, reason] of expected) {
    const line = lines.find((l) => l.startsWith(prefix));
    expect(line, `an error line starting ${prefix}`).toBeDefined();
    expect(line!.slice(prefix.length)).toMatch(reason);
  }
  expect(plan.stdout).toMatch(/4 valid, 9 invalid/);

  const json = stdoutJson(await runCli(['plan', job, '--json']));
  expect(json).toMatchObject({ rows: 13, valid: 4, invalid: 9, error_count: 9 });
  expect(json.errors).toEqual(lines);
});

test.skipIf(!BUILT)('run refuses a manifest with invalid rows: exit 2, not one request', async () => {
  const ws = workspace();
  const sim = await startSim();
  const { job, csv } = writeBadJob(ws);
  const run = await runCli(['run', job, '--state', ws.state, '--out', ws.out], { env: gatewayEnv(sim.baseUrl, KEY) });
  expect(run.code).toBe(2);
  expect(run.stderr).toContain(`${csv}:5 row 'too-long' field 'duration'`);
  expect(run.stderr).toMatch(/9 invalid row\(s\); fix them or pass --skip-invalid/);
  expect(sim.ledger.requests).toHaveLength(0);
  expect(readJournal(ws.state).items).toHaveLength(0);
});

test.skipIf(!BUILT)(
  'run --skip-invalid sends only the valid rows; the report shows the others as invalid',
  async () => {
    const ws = workspace();
    const sim = await startSim();
    const { job } = writeBadJob(ws);
    const run = await runCli(
      ['run', job, '--state', ws.state, '--out', ws.out, '--skip-invalid', '--poll-interval', '0.05', '--quiet'],
      { env: gatewayEnv(sim.baseUrl, KEY) },
    );
    expect(run.code, run.stderr).toBe(1); // finished, with items that are not downloaded
    expect(posts(sim.ledger)).toBe(VALID.length);
    expect(Object.keys(sim.ledger.submissionsByPrompt()).sort()).toEqual([
      'A second valid clip',
      'A valid clip',
      'Hello there',
      'hi',
    ]);

    const report = await reportJson(ws.state);
    const states = Object.fromEntries(report.items.map((i) => [i.id, i.state]));
    for (const id of VALID) expect(states[id], id).toBe('downloaded');
    for (const id of ['bad-kind', 'blank-prompt', 'too-long', 'no-4k', 'too-hot', 'wrong-url'])
      expect(states[id], id).toBe('invalid');
    expect(report.totals.by_state).toEqual({ downloaded: 4, invalid: 9 });
    const tooLong = reportItemOf(report, 'too-long');
    expect(tooLong.error?.message).toMatch(/duration/);
    expect(tooLong.actual_usd).toBeNull();

    // The invalid rows are a need of the standing: the plan it names (in the run's last lines and in status)
    // lists each, and works as pasted.
    const status = await runCli(['status', '--state', ws.state]);
    expect(status.stdout).toMatch(/invalid \(9\): 9 manifest row\(s\) invalid \(never sent\): fix them/);
    const plans = [...new Set([...suggested(run.stdout), ...suggested(status.stdout)])];
    expect(plans).toEqual([`gbatch plan ${job} --skip-invalid`]);
    const pasted = await runAsPrinted(plans[0]!, ws.dir, gatewayEnv(sim.baseUrl, KEY));
    expect(pasted.code, pasted.out).toBe(0);
    expect(pasted.out).toContain(`row 'too-long' field 'duration'`);
  },
);
