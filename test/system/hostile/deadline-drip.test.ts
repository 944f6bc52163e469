// --deadline bounds requests in flight: an answer dripping one byte a second is cut after the grace,
// nothing leaves after the deadline, and the cut submission is uncertain (it may have reached the gateway).
import { expect, onTestFinished, test } from 'vitest';
import { BUILT, gatewayEnv, startCli, stdoutJson } from '../../helpers/cli.js';
import { readJournal } from '../../helpers/journal-read.js';
import { chatRow, writeJsonl } from '../../helpers/manifests.js';
import { workspace } from '../../helpers/workspace.js';
import { DEFAULTS, startHostileGateway } from '../../helpers/hostile-gateway.js';

const DEADLINE_S = 2;
const GRACE_S = 1;
/** Start-up, journal and exit work on a loaded 2-core machine. */
const MARGIN_MS = 4_000;

test.skipIf(!BUILT)(
  '--deadline 2s --deadline-grace 1: a dripping answer is cut, nothing is sent after the deadline, exit 4',
  async () => {
    const ws = workspace();
    const timers = new Set<NodeJS.Timeout>();
    onTestFinished(() => timers.forEach((t) => clearTimeout(t)));
    const arrivals: Array<{ at: number; prompt: string }> = [];
    const gw = await startHostileGateway({
      routes: {
        chat: (req, res, gateway) => {
          const prompt = String(req.json?.messages?.[0]?.content);
          arrivals.push({ at: Date.now(), prompt });
          if (prompt === 'drip') {
            // Headers at once, then one byte a second, for ever: only the client can end this exchange.
            res.writeHead(200, { 'content-type': 'application/json' });
            res.write('{');
            const drip = setInterval(() => res.write(' '), 1000);
            timers.add(drip);
            res.on('close', () => clearInterval(drip));
            return;
          }
          // Honest but slow answers keep the other lane busy up to the deadline.
          const later = setTimeout(() => DEFAULTS.chat(req, res, gateway), 150);
          timers.add(later);
        },
      },
    });
    onTestFinished(() => gw.close());
    const rows = [chatRow('drip', 'drip'), ...Array.from({ length: 40 }, (_, i) => chatRow(`c${i}`, `row ${i}`))];
    const manifest = writeJsonl(ws.path('rows.jsonl'), rows);

    const startedAt = Date.now();
    const child = startCli(
      [
        'run',
        manifest,
        '--state',
        ws.state,
        '--out',
        ws.out,
        '--concurrency',
        '2',
        '--deadline',
        `${DEADLINE_S}s`,
        '--deadline-grace',
        String(GRACE_S),
        '--json',
        '--quiet',
      ],
      { env: gatewayEnv(gw.baseUrl, gw.key) },
    );
    const run = await child.result;
    const endedAt = Date.now();
    expect(run.code, run.stderr).toBe(4);
    const summary = stdoutJson(run);
    expect(summary.stop_reason).toBe('deadline');
    const deadline = Date.parse(/deadline reached \(([^)]+)\)/.exec(summary.stop_message)![1]!);
    expect(summary.stop_message).toMatch(
      /nothing was sent after it; 1 submission\(s\) still on the wire were cut after the 1 s grace and are uncertain/,
    );
    expect(run.stderr).toMatch(
      /deadline reached \(.+\): no new submissions; submissions in flight get 1 s, then are cut/,
    );

    // Bounded: the run ends within the grace (plus exit work) after the deadline, not when the drip ends.
    expect(deadline).toBeGreaterThanOrEqual(startedAt);
    expect(endedAt - deadline).toBeLessThan(GRACE_S * 1000 + MARGIN_MS);
    expect(endedAt - startedAt).toBeLessThan((DEADLINE_S + GRACE_S) * 1000 + MARGIN_MS);

    // Nothing left after the deadline (a request that left just before it arrives a hair later).
    expect(arrivals.length).toBeGreaterThan(2);
    const late = arrivals.filter((a) => a.at > deadline + 50);
    expect(late).toEqual([]);

    const { byId, counts } = readJournal(ws.state);
    expect(byId.get('drip')!.state).toBe('uncertain');
    expect(counts.uncertain).toBe(1);
    expect(counts.submitting).toBe(0);
    expect(counts.pending).toBeGreaterThan(0); // rows not sent by the deadline wait for the next run
    expect(counts.downloaded + counts.pending + counts.uncertain).toBe(rows.length);
    expect(gw.count('POST', '/v1/chat/completions')).toBe(counts.downloaded + 1);
  },
);

test.skipIf(!BUILT)('--deadline 0m sends nothing: exit 75, no request at the gateway, every row pending', async () => {
  const ws = workspace();
  const gw = await startHostileGateway();
  onTestFinished(() => gw.close());
  const manifest = writeJsonl(
    ws.path('rows.jsonl'),
    Array.from({ length: 6 }, (_, i) => chatRow(`c${i}`, `row ${i}`)),
  );
  const run = await startCli(
    ['run', manifest, '--state', ws.state, '--out', ws.out, '--deadline', '0m', '--json', '--quiet'],
    { env: gatewayEnv(gw.baseUrl, gw.key) },
  ).result;
  expect(run.code, run.stderr).toBe(75);
  expect(stdoutJson(run).stop_reason).toBe('deadline');
  expect(gw.requests).toEqual([]);
  expect(readJournal(ws.state).counts.pending).toBe(6);
});
