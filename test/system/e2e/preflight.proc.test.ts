// An output or journal path on a file system that answers ENOENT to mkdir with the parent present
// (/proc): exit 2 at once with one line naming the path, nothing sent, the journal as it was. Node's own
// recursive mkdir spun there forever, deaf to SIGTERM; each child here is killed after a bound, so a
// regression fails instead of hanging.
import { existsSync, readdirSync } from 'node:fs';
import { expect, onTestFinished, test } from 'vitest';
import { startHostileGateway } from '../../helpers/hostile-gateway.js';
import { BUILT, gatewayEnv, runCli, startCli, type CliOptions, type CliResult } from '../../helpers/cli.js';
import { journalSnapshot } from '../../helpers/journal-snapshot.js';
import { chatRow, writeJsonl } from '../../helpers/manifests.js';
import { workspace } from '../../helpers/workspace.js';

/** Far above a refusal's time (about a second); below the test's own timeout, so the kill is what fails it. */
const BOUND_MS = 15_000;
const ON_PROC = existsSync('/proc/self');

/** The CLI, SIGKILLed if it has not ended within BOUND_MS (its result then has code null). */
async function runBounded(args: readonly string[], options: CliOptions): Promise<CliResult> {
  const cli = startCli(args, options);
  const kill = (): void => void cli.child.kill('SIGKILL');
  const timer = setTimeout(kill, BOUND_MS);
  onTestFinished(kill);
  try {
    return await cli.result;
  } finally {
    clearTimeout(timer);
  }
}

function refusedWith(result: CliResult, line: RegExp): void {
  expect(result.signal, 'the command hung and was killed').toBeNull();
  expect(result.code, result.stderr).toBe(2);
  const lines = result.stderr.split('\n').filter((l) => l.trim() !== '');
  expect(lines, result.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(line);
}

test.skipIf(!BUILT || !ON_PROC)(
  '--out, --state and report --output under /proc: exit 2 naming the path, nothing sent or changed',
  async () => {
    const ws = workspace();
    const gw = await startHostileGateway();
    onTestFinished(() => gw.close());
    const env = gatewayEnv(gw.baseUrl, gw.key);
    const manifest = writeJsonl(ws.path('rows.jsonl'), [chatRow('c1', 'hi'), chatRow('c2', 'there')]);
    const ingested = await runCli(['run', manifest, '--state', ws.state, '--ingest-only', '--budget', '1'], {
      cwd: ws.dir,
    });
    expect(ingested.code, ingested.stderr).toBe(0);
    const before = journalSnapshot(ws.state);

    const [outFresh, outExisting, state, report] = await Promise.all([
      runBounded(['run', manifest, '--state', ws.path('fresh.db'), '--out', '/proc/gbatch-out'], { env, cwd: ws.dir }),
      runBounded(['run', manifest, '--state', ws.state, '--out', '/proc/gbatch-out/deeper'], { env, cwd: ws.dir }),
      runBounded(['run', manifest, '--state', '/proc/gbatch-state/job.db', '--out', ws.out], { env, cwd: ws.dir }),
      runBounded(['report', '--state', ws.state, '--format', 'json', '--output', '/proc/gbatch-report/r.json'], {
        cwd: ws.dir,
      }),
    ]);

    const cannotCreate = 'the file system does not allow creating a directory there \\(ENOENT\\)';
    refusedWith(outFresh, new RegExp(`^gbatch run: /proc/gbatch-out: cannot write --out there: ${cannotCreate}$`));
    refusedWith(
      outExisting,
      new RegExp(`^gbatch run: /proc/gbatch-out/deeper: cannot write --out there: ${cannotCreate}$`),
    );
    refusedWith(
      state,
      new RegExp(
        `^gbatch run: /proc/gbatch-state: cannot write the directory of the journal /proc/gbatch-state/job\\.db there: ${cannotCreate}$`,
      ),
    );
    refusedWith(
      report,
      new RegExp(`^gbatch report: /proc/gbatch-report: cannot write --output there: ${cannotCreate}$`),
    );
    expect(gw.requests).toHaveLength(0);
    expect(journalSnapshot(ws.state)).toEqual(before);
    expect(readdirSync(ws.dir).sort()).toEqual(['rows.jsonl', 'state']);
  },
  2 * BOUND_MS,
);
