// Issue 11: results.jsonl is appended in place after a run's first rebuild. A run SIGKILLed after such
// an append, its file then torn as a kill in the middle of a write would leave it, is repaired by the
// next run: exactly one line per item in a final state, in manifest order, nothing sent twice.
import { appendFileSync, readFileSync, statSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { TERMINAL } from '../../../src/core/states.js';
import { BUILT, gatewayEnv, runCli, startCli } from '../../helpers/cli.js';
import { readJournal } from '../../helpers/journal-read.js';
import { chatRow, writeJsonl } from '../../helpers/manifests.js';
import { duplicates, KEY, posts, startSim } from '../../helpers/sim.js';
import { fileChange } from '../../helpers/wait.js';
import { workspace } from '../../helpers/workspace.js';

const ROWS = 800;

test.skipIf(!BUILT)(
  'SIGKILL after an in-place append, the file torn: the next run leaves one line per final row, in manifest order',
  async () => {
    const ws = workspace();
    // Jitter: answers arrive out of manifest order, so rebuilds also rewrite lines past an open row. 10 ms
    // answers, 10 at a time: the rebuilds (every 256 answers) are ~0.3 s apart, so the watch below sees the
    // first file before the next rebuild grows it, even on a loaded machine.
    const sim = await startSim({ faults: { latencyMs: 10, latencyJitterMs: 2 } });
    const env = gatewayEnv(sim.baseUrl, KEY);
    const manifest = writeJsonl(
      ws.path('rows.jsonl'),
      Array.from({ length: ROWS }, (_, i) => chatRow(`c${i}`, `line ${i}`)),
    );
    const args = ['run', manifest, '--state', ws.state, '--out', ws.out, '--concurrency', '10', '--quiet', '--json'];
    const results = join(ws.out, 'results.jsonl');

    mkdirSync(ws.out, { recursive: true }); // watched from before the run writes into it
    const first = startCli(args, { env });
    // The first rebuild writes a new file; a later one grows that same file (same inode).
    let seen: { ino: number; size: number } | undefined;
    let appendedInPlace = false;
    const stopWatching = new AbortController();
    const appended = fileChange(
      ws.out,
      () => {
        const now = statSync(results, { throwIfNoEntry: false });
        if (now && seen && now.ino === seen.ino && now.size > seen.size) appendedInPlace = true;
        if (now) seen = { ino: now.ino, size: now.size };
        return appendedInPlace;
      },
      stopWatching.signal,
    );
    await Promise.race([appended, first.result]);
    stopWatching.abort();
    first.child.kill('SIGKILL');
    const killed = await first.result;
    expect(appendedInPlace, 'the run ended before any in-place append').toBe(true);
    expect(killed.signal).toBe('SIGKILL');
    // The kill may land anywhere after that append (late in the run on a fast machine): the file is torn below.
    expect(readJournal(ws.state).counts.downloaded).toBeGreaterThan(0);
    // What a kill in the middle of an append leaves: part of a line, no newline.
    appendFileSync(results, '{"id":"batch_req_9","custom_id":"c8","respo');

    // Rows the kill caught mid-request are uncertain now (never resent blindly): the run ends asking for `resolve`.
    const second = await runCli(args, { env });
    const { items } = readJournal(ws.state);
    const final = items.filter((i) => TERMINAL.has(i.state));
    const uncertain = items.filter((i) => i.state === 'uncertain');
    expect(final.length + uncertain.length, second.stderr).toBe(ROWS);
    expect(second.code, second.stderr).toBe(uncertain.length > 0 ? 4 : 0);
    const text = readFileSync(results, 'utf8');
    expect(text.endsWith('\n')).toBe(true);
    const lines = text
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { custom_id: string; response: { body: { object: string } } });
    expect(lines.map((l) => l.custom_id)).toEqual(final.map((i) => i.id));
    expect(lines.every((l) => l.response.body.object === 'chat.completion')).toBe(true);
    // a row killed before its request left is uncertain, never sent
    expect(posts(sim.ledger)).toBeLessThanOrEqual(ROWS);
    expect(duplicates(sim.ledger)).toEqual({});
  },
  60_000,
);
