// The package as another project gets it: `npm pack`, installed into a scratch project, imported by name
// (`import { runJob, planJob, openJournal } from 'gbatch'`), its types checked by tsc, and its `gbatch`
// bin run from there. The one install step not repeated is better-sqlite3's native build (minutes of
// compiling where no prebuilt binary can be fetched): its compiled addon is copied from the repo's own
// install of the same version.
import { execFile, spawn } from 'node:child_process';
import {
  copyFileSync,
  cpSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { BUILT } from '../../helpers/cli.js';
import { ROOT } from '../../helpers/workspace.js';
import { pgAvailable, usePgSchema } from '../../helpers/postgres.js';
import { SCHEMA_VERSION as POSTGRES_VERSION } from '../../../src/journal/postgres/schema.js';
import { SCHEMA_VERSION as SQLITE_VERSION } from '../../../src/journal/sqlite/schema.js';
import { openSqliteFile } from '../../helpers/journal-raw.js';

const run = promisify(execFile);
const db = usePgSchema('gbatch_pack');
const NPM_QUIET = ['--no-audit', '--no-fund', '--loglevel=error'];
let dir = '';
let project = '';
let tarball = '';
const timings: Record<string, number> = {};

async function timed<T>(name: string, work: () => Promise<T>): Promise<T> {
  const started = Date.now();
  try {
    return await work();
  } finally {
    timings[name] = Date.now() - started;
  }
}

beforeAll(async () => {
  if (!BUILT) return;
  dir = mkdtempSync(join(tmpdir(), 'gbatch-pack-'));
  // --ignore-scripts: `prepare` would rebuild dist/, which the test run has just built.
  const packed = await timed('pack', () =>
    run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dir, ...NPM_QUIET], { cwd: ROOT }),
  );
  const [info] = JSON.parse(packed.stdout) as Array<{ filename: string; files: Array<{ path: string }> }>;
  tarball = join(dir, info!.filename);
  const paths = info!.files.map((f) => f.path);
  // What runs ships; the tests and sources do not.
  expect(paths).toEqual(
    expect.arrayContaining([
      'bin/gbatch.js',
      'dist/bundle/index.js',
      'dist/index.d.ts',
      'dist/bundle/main.js',
      'assets/sim-video.mp4',
      'package.json',
    ]),
  );
  expect(
    paths.filter(
      (p) =>
        p.startsWith('test/') ||
        p.startsWith('src/') ||
        p.endsWith('.map') ||
        p.endsWith('.sql') ||
        (p.endsWith('.js') && p.startsWith('dist/') && !p.startsWith('dist/bundle/')),
    ),
  ).toEqual([]);

  project = join(dir, 'consumer');
  mkdirSync(project);
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  await timed('install', () =>
    run('npm', ['install', tarball, '--prefer-offline', '--ignore-scripts', ...NPM_QUIET], { cwd: project }),
  );
  const addon = join('node_modules', 'better-sqlite3', 'build', 'Release');
  mkdirSync(join(project, addon), { recursive: true });
  copyFileSync(join(ROOT, addon, 'better_sqlite3.node'), join(project, addon, 'better_sqlite3.node'));
}, 180_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  if (Object.keys(timings).length > 0) console.log(`pack test timings (ms): ${JSON.stringify(timings)}`);
});

/** `gbatch sim` from the installed package's bin, on a free loopback port; stopped after the test. */
async function installedSim(): Promise<{ baseUrl: string; stop: () => void }> {
  const child = spawn(
    join(project, 'node_modules', '.bin', 'gbatch'),
    ['sim', '--port', '0', '--task-seconds', '0.2'],
    { cwd: project, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const baseUrl = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      const match = /listening on (\S+)/.exec(out);
      if (match) resolve(match[1]!);
    });
    child.once('exit', (code) => reject(new Error(`gbatch sim exited ${code}`)));
  });
  return { baseUrl, stop: () => child.kill('SIGTERM') };
}

test.skipIf(!BUILT)(
  'a scratch project imports runJob, planJob and openJournal from the packed package and runs a job with them',
  async () => {
    const sim = await installedSim();
    try {
      writeFileSync(
        join(project, 'rows.jsonl'),
        [
          {
            id: 'c1',
            kind: 'chat',
            model: 'chat-small',
            messages: [{ role: 'user', content: 'Say hi' }],
            max_tokens: 16,
          },
          {
            id: 'v1',
            kind: 'video',
            model: 'video-mini',
            prompt: 'A lighthouse at dusk',
            resolution: '480p',
            duration: 2,
          },
        ]
          .map((r) => JSON.stringify(r))
          .join('\n') + '\n',
      );
      writeFileSync(
        join(project, 'use.mjs'),
        `
import { runJob, planJob, openJournal, UsageError } from 'gbatch';
const plan = await planJob({ job: 'rows.jsonl', options: { budget: 5 } });
const result = await runJob({ job: 'rows.jsonl', baseUrl: process.argv[2], apiKey: 'sk-sim-demo', options: { budget: 5, 'poll-interval': 0.1 } });
const journal = await openJournal({ job: 'rows' });
const counts = await journal.counts();
const last = await journal.lastRun();
await journal.close();
let refused;
try { await runJob({ job: 'rows.jsonl', baseUrl: process.argv[2], apiKey: 'k', options: { concurrency: 0 } }); } catch (err) { refused = err instanceof UsageError ? err.message : String(err); }
console.log(JSON.stringify({ plan: { valid: plan.valid, exitCode: plan.exitCode, fits: plan.fitsBudget }, exitCode: result.exitCode, meaning: result.meaning, counts, lastExit: last.exitCode, refused,
  stopReason: result.stopReason, stopMessage: result.stopMessage, lastStartedAt: last.startedAt, lastEndedAt: last.endedAt }));
`,
      );
      const { stdout } = await timed('consumer', () =>
        run(process.execPath, ['use.mjs', sim.baseUrl], { cwd: project }),
      );
      const out = JSON.parse(stdout.trim().split('\n').at(-1)!);
      expect(out).toMatchObject({
        plan: { valid: 2, exitCode: 0, fits: true },
        exitCode: 0,
        meaning: 'Done: every item is finished.',
        counts: { downloaded: 2, pending: 0 },
        lastExit: 0,
        // null, not undefined (a key JSON keeps), and the last run's times as ISO strings, as status --json gives them.
        stopReason: null,
        stopMessage: null,
      });
      expect(out.lastStartedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expect(Date.parse(out.lastEndedAt)).toBeGreaterThanOrEqual(Date.parse(out.lastStartedAt));
      expect(out.refused).toMatch(/option 'concurrency'/);
      expect(readdirSync(join(project, 'out', 'rows')).sort()).toEqual(
        expect.arrayContaining(['results.jsonl', 'v1.mp4']),
      );
    } finally {
      sim.stop();
    }
  },
  60_000,
);

test.skipIf(!BUILT)(
  'its types resolve from the package for a TypeScript consumer; the bin runs from the project',
  async () => {
    writeFileSync(
      join(project, 'check.ts'),
      `
import { runJob, planJob, openJournal, type RunJobResult, type PlanResult, type JobJournal, type ItemState } from 'gbatch';
export async function nightly(): Promise<number> {
  const plan: PlanResult = await planJob({ job: 'jobs/nightly.json' });
  const result: RunJobResult = await runJob({ job: 'jobs/nightly.json', options: { budget: 20, deadline: '06:00', notify: ['https://hooks.example/x'] } });
  const journal: JobJournal = await openJournal({ job: 'nightly' });
  const state: ItemState = 'downloaded';
  const n: number = (await journal.counts())[state];
  // @ts-expect-error options are the flags of \`gbatch run\`, by name and type
  await runJob({ job: 'x.csv', options: { budget: 'lots' } });
  return plan.exitCode + result.exitCode + n;
}
`,
    );
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          target: 'ES2022',
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          types: [],
        },
        files: ['check.ts'],
      }),
    );
    const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    const checked = await timed('tsc', () =>
      run(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: project }).then(
        () => 'ok',
        (err: { stdout: string }) => err.stdout,
      ),
    );
    expect(checked).toBe('ok');
    const version = await run(join(project, 'node_modules', '.bin', 'gbatch'), ['--version'], { cwd: project });
    expect(version.stdout.trim()).toBe(
      `gbatch ${JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version}`,
    );
  },
  60_000,
);

test.skipIf(!BUILT)(
  'its types compile for a strict consumer without skipLibCheck: they name no dev dependency (better-sqlite3, pg)',
  async () => {
    // A Node project has @types/node; it has neither @types/better-sqlite3 nor @types/pg, gbatch's dev dependencies.
    for (const types of [join('@types', 'node'), 'undici-types']) {
      cpSync(join(ROOT, 'node_modules', types), join(project, 'node_modules', types), { recursive: true });
    }
    writeFileSync(
      join(project, 'strict.ts'),
      `
import { runJob, planJob, openJournal, type RunJobResult, type PlanResult, type JobJournal, type LastRun, type Item } from 'gbatch';
import { startSimulator } from 'gbatch/sim';
export async function nightly(): Promise<string | null> {
  const plan: PlanResult = await planJob({ job: 'jobs/nightly.json', showRequests: 1 });
  const result: RunJobResult = await runJob({ job: 'jobs/nightly.json', options: { 'meta-columns': 'notes' } });
  const journal: JobJournal = await openJournal({ job: 'nightly' });
  const last: LastRun | undefined = await journal.lastRun();
  const item: Item | undefined = await journal.item('r1');
  const sim = await startSimulator({ port: 0 });
  await sim.close();
  return result.stopReason ?? last?.startedAt ?? item?.id ?? plan.requests[0]?.body ?? null;
}
`,
    );
    writeFileSync(
      join(project, 'tsconfig.strict.json'),
      JSON.stringify({
        compilerOptions: {
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          target: 'ES2022',
          strict: true,
          noEmit: true,
          types: ['node'],
        },
        files: ['strict.ts'],
      }),
    );
    const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    const checked = await run(process.execPath, [tsc, '-p', 'tsconfig.strict.json'], { cwd: project }).then(
      () => 'ok',
      (err: { stdout: string }) => err.stdout,
    );
    expect(checked).toBe('ok');
  },
  60_000,
);

test.skipIf(!BUILT)(
  "the README's approval of better-sqlite3's install script works in a project that depends on gbatch",
  async () => {
    const before = await run('npm', ['install-scripts', 'ls'], { cwd: project });
    expect(before.stdout).toMatch(/better-sqlite3@[\d.]+ \(install: /);
    await run('npm', ['install-scripts', 'approve', 'better-sqlite3'], { cwd: project });
    const approved = JSON.parse(readFileSync(join(project, 'package.json'), 'utf8')) as {
      allowScripts?: Record<string, boolean>;
    };
    expect(Object.entries(approved.allowScripts ?? {})).toEqual([
      [expect.stringMatching(/^better-sqlite3(@[\d.]+)?$/), true],
    ]);
    // (gbatch's own `prepare` may still be listed: npm counts it for a package installed from a tarball.)
    expect((await run('npm', ['install-scripts', 'ls'], { cwd: project })).stdout).not.toMatch(/better-sqlite3/);
  },
  60_000,
);

test.skipIf(!BUILT)(
  'the installed bin brings a new journal to the current schema on both adapters: every schema step ships in the bundle',
  async () => {
    // The package holds no .sql file (see beforeAll): the steps must be inside the bundle.
    const bin = join(project, 'node_modules', '.bin', 'gbatch');
    const sqlite = await run(bin, ['journal', 'migrate', '--journal', 'fresh.db'], { cwd: project });
    expect(sqlite.stdout).toBe('fresh.db: journal schema current\n');
    const file = openSqliteFile(join(project, 'fresh.db'), { readonly: true });
    try {
      expect(file.pragma('user_version', { simple: true })).toBe(SQLITE_VERSION);
    } finally {
      file.close();
    }
    if (!pgAvailable()) return;
    const server = await run(bin, ['journal', 'migrate', '--journal', db.url()], { cwd: project });
    expect(server.stdout).toMatch(
      new RegExp(`journal schema at version ${POSTGRES_VERSION} \\(${POSTGRES_VERSION} step\\(s\\) applied\\)\n$`),
    );
    expect((await db.query('SELECT version FROM gbatch_schema_version')).rows).toEqual([{ version: POSTGRES_VERSION }]);
  },
  60_000,
);
