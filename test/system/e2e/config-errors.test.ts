// Issue 10, item 11: configuration errors are exit 2 with one line naming the file and the cause, no
// stack, no journal left behind, nothing sent: real child processes of the built CLI.
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { BUILT, gatewayEnv, runCli } from '../../helpers/cli.js';
import { chatRow, writeJsonl } from '../../helpers/manifests.js';
import { CAN_MOUNT, mountTmpfs } from '../../helpers/tmpfs.js';
import { workspace } from '../../helpers/workspace.js';
import { hostileGateway, refusedWith } from '../../helpers/refusal.js';

test.skipIf(!BUILT)(
  'run: a missing manifest, --state naming a directory, a non-SQLite journal, --out a file, --pricing /dev/zero',
  async () => {
    const ws = workspace();
    const gw = await hostileGateway();
    const env = gatewayEnv(gw.baseUrl, gw.key);
    const manifest = writeJsonl(ws.path('rows.jsonl'), [chatRow('c1', 'hi')]);
    mkdirSync(ws.path('adir'));
    writeFileSync(ws.path('notes.db'), 'these are my notes, not a journal\n');
    const run = (...args: string[]) => runCli(['run', ...args], { env, cwd: ws.dir });

    const [missing, stateDir, notDb, outFile, pricing] = await Promise.all([
      run('nosuch.jsonl'),
      run(manifest, '--state', ws.path('adir')),
      run(manifest, '--state', ws.path('notes.db')),
      run(manifest, '--state', ws.state, '--out', '/etc/passwd'),
      run(manifest, '--state', ws.state, '--pricing', '/dev/zero'),
    ]);

    refusedWith(missing, /^gbatch run: nosuch\.jsonl: cannot read the manifest: no such file or directory \(ENOENT\)$/);
    refusedWith(stateDir, /adir: cannot use it as the journal \(--state\): it is not a regular file$/);
    refusedWith(notDb, /notes\.db: cannot use the journal: not a gbatch journal \(not an SQLite database\)$/);
    refusedWith(
      outFile,
      /^gbatch run: \/etc\/passwd: cannot write --out there: already exists and is not a directory \(EEXIST\)$/,
    );
    refusedWith(pricing, /^gbatch run: \/dev\/zero: cannot read pricing file: not a regular file$/);
    expect(gw.requests).toHaveLength(0);
    // Nothing left behind: no journal (the missing manifest used to leave an empty one), no output folder.
    expect(existsSync(ws.path('state'))).toBe(false);
    expect(readdirSync(ws.dir).sort()).toEqual(['adir', 'notes.db', 'rows.jsonl']);
    expect(readdirSync(ws.path('adir'))).toEqual([]);
  },
);

test.skipIf(!BUILT)('status, report, resolve and plan name a journal or file that cannot be used, exit 2', async () => {
  const ws = workspace();
  writeFileSync(ws.path('notes.db'), 'these are my notes, not a journal\n');
  mkdirSync(ws.path('adir'));
  const manifest = writeJsonl(ws.path('rows.jsonl'), [chatRow('c1', 'hi')]);
  const [status, report, resolve, reportDir, plan] = await Promise.all([
    runCli(['status', '--state', ws.path('notes.db')]),
    runCli(['report', '--state', ws.path('notes.db'), '--format', 'json']),
    runCli(['resolve', '--state', ws.path('notes.db'), 'c1', '--abandon']),
    runCli(['report', '--state', ws.path('adir')]),
    runCli(['plan', manifest, '--pricing', '/dev/zero']),
  ]);
  for (const [result, command] of [
    [status, 'status'],
    [report, 'report'],
    [resolve, 'resolve'],
  ] as const) {
    refusedWith(
      result,
      new RegExp(
        `^gbatch ${command}: .*notes\\.db: cannot use the journal: not a gbatch journal \\(not an SQLite database\\)$`,
      ),
    );
  }
  refusedWith(reportDir, /adir: cannot use the journal: it is a directory$/);
  refusedWith(plan, /\/dev\/zero: cannot read pricing file: not a regular file$/);
});

test.skipIf(!BUILT || !CAN_MOUNT)(
  'a journal on a read-only file system: run and resolve exit 2 naming it, status still reads it',
  async () => {
    const ws = workspace();
    const gw = await hostileGateway();
    const disk = mountTmpfs('4m');
    const state = join(disk.dir, 'job.db');
    const manifest = writeJsonl(ws.path('rows.jsonl'), [chatRow('c1', 'hi')]);
    const ingest = await runCli(['run', manifest, '--state', state, '--ingest-only']);
    expect(ingest.code, ingest.stderr).toBe(0);
    disk.remount('ro');

    const env = gatewayEnv(gw.baseUrl, gw.key);
    const [run, resolve, status] = await Promise.all([
      runCli(['run', manifest, '--state', state, '--out', ws.out], { env }),
      runCli(['resolve', '--state', state, 'c1', '--abandon']),
      runCli(['status', '--state', state]),
    ]);

    refusedWith(run, /cannot write the directory of the journal .*job\.db there: read-only file system \(EROFS\)$/);
    refusedWith(
      resolve,
      /job\.db: cannot use the journal: the file cannot be written: read-only file system \(EROFS\)$/,
    );
    expect(status.code, status.stderr).toBe(0);
    expect(gw.requests).toHaveLength(0);
    expect(existsSync(ws.out)).toBe(false);
  },
);
