// The HTML report's problems, read from a real journal and parsed: rows held back by the budget for
// different amounts are one group (the cause is what happened, not a message's dollar figures), invalid
// rows show their real error and their text as written (escaped), and a text-only job's page has no
// video panel.
import { readFileSync } from 'node:fs';
import { parseHTML } from 'linkedom';
import { expect, test } from 'vitest';
import { BUILT, gatewayEnv, runCli } from '../../helpers/cli.js';
import { chatRow, writeJsonl } from '../../helpers/manifests.js';
import { KEY, startSim } from '../../helpers/sim.js';
import { workspace } from '../../helpers/workspace.js';

const HOSTILE = '<img src=x onerror=alert(1)>\u001b[2J';

test.skipIf(!BUILT)(
  'problems are grouped by cause; invalid rows show their real text; a text-only job has no video panel',
  async () => {
    const ws = workspace();
    const sim = await startSim();
    // Prompts of different lengths: each deferred row needs a different amount.
    const rows = ['a', 'bb'.repeat(40), 'ccc'.repeat(90), 'dddd'.repeat(160), 'eeeee'.repeat(250)].map((p, i) =>
      chatRow(`c${i}`, `Say ${p}`),
    );
    const broken = `{"id": "bad-1", "kind": "chat", "model": "chat-small", "messages": "${HOSTILE.replace(/\u001b/g, '\\u001b')}"}`;
    const torn = `{"id": "bad-3", "kind": "chat", "note": "${HOSTILE}`; // a raw control character: no JSON at all
    const manifest = writeJsonl(ws.path('rows.jsonl'), [
      ...rows,
      broken,
      chatRow('bad-2', 'x', { model: 'chat-nope' }),
      torn,
    ]);
    // A budget no row fits: every valid row is deferred, each needing its own amount.
    const run = await runCli(
      ['run', manifest, '--state', ws.state, '--out', ws.out, '--skip-invalid', '--budget', '0.00001', '--quiet'],
      { env: gatewayEnv(sim.baseUrl, KEY) },
    );
    expect(run.code, run.stderr).toBe(3);
    const html = ws.path('report.html');
    const report = await runCli(['report', '--state', ws.state, '--format', 'html', '--output', html]);
    expect(report.code, report.stderr).toBe(0);
    const { document } = parseHTML(readFileSync(html, 'utf8'));

    const problems = [...document.querySelectorAll('#problems .problem')];
    const byState = (state: string) =>
      problems.filter((p) => p.querySelector('[data-problem-count]')!.getAttribute('data-problem-count') === state);
    const deferred = byState('deferred');
    expect(deferred).toHaveLength(1);
    const deferredCount = Number(deferred[0]!.querySelector('[data-problem-count]')!.textContent);
    expect(deferredCount).toBe(rows.length);
    // What happened, said once: not "deferred deferred by --budget".
    expect(deferred[0]!.querySelector('.cause')!.textContent).toBe('deferred by --budget');
    // Each example in its own words: the amounts are there, per row.
    const deferredMessages = [...deferred[0]!.querySelectorAll('.examples .err')].map((e) => e.textContent);
    expect(new Set(deferredMessages).size).toBe(deferredMessages.length);
    expect(deferredMessages.every((m) => /^deferred by --budget: needs up to \$/.test(m!))).toBe(true);

    const invalid = byState('invalid');
    expect(invalid).toHaveLength(3); // three causes: the messages field, the model's price, malformed JSON
    const examples = invalid.flatMap((g) => [...g.querySelectorAll('.examples li')]);
    const bad1 = examples.find((li) => li.querySelector('code')!.textContent === 'bad-1')!;
    expect(bad1.querySelector('.err')!.textContent).toContain(
      `${manifest}:6 row 'bad-1' field 'messages': must be a non-empty array of messages`,
    );
    // The row as written, its markup as text.
    expect(bad1.querySelector('.row-text')!.textContent).toBe(broken);
    expect(bad1.querySelector('img')).toBeNull();
    // A control character in a row's text is shown escaped, never passed to the page.
    const bad3 = examples.find((li) => li.querySelector('code')!.textContent === '@rows.jsonl:8')!;
    expect(bad3.querySelector('.row-text')!.textContent).toBe(torn.replace('\u001b', '\\x1b'));
    expect(readFileSync(html, 'utf8')).not.toContain('\u001b');
    const bad2 = examples.find((li) => li.querySelector('code')!.textContent === 'bad-2')!;
    expect(bad2.querySelector('.err')!.textContent).toContain("no price for model 'chat-nope' in the pricing table");
    expect(bad2.querySelector('.row-text')!.textContent).toContain('"model":"chat-nope"');

    expect(document.querySelector('#durations')).toBeNull();
    expect(document.querySelector('#states')).not.toBeNull();
  },
);
