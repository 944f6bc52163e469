// `gbatch run`'s progress as a user sees it: a real run under a pseudo-terminal (util-linux `script`)
// redraws one frame in place within the width; piped, it prints a few timestamped lines; with
// `--progress json`, every stderr line is a JSON object with the documented fields.
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { expect, test } from 'vitest';
import { BIN, BUILT, gatewayEnv, runCli, stdoutJson } from '../../helpers/cli.js';
import { chatRow, videoRow, writeJsonl } from '../../helpers/manifests.js';
import { KEY, startSim } from '../../helpers/sim.js';
import { replay } from '../../helpers/terminal.js';
import { ROOT, workspace, type Workspace } from '../../helpers/workspace.js';

const HAS_SCRIPT = spawnSync('script', ['--version']).status === 0;
const WIDTH = 80;
const HEIGHT = 24;
const CHATS = 20;
const VIDEOS = 4;
const ROWS = CHATS + VIDEOS;
const NARROW = 60;

function campaign(ws: Workspace): string {
  return writeJsonl(ws.path('rows.jsonl'), [
    ...Array.from({ length: CHATS }, (_, i) => chatRow(`c${i}`, `Say hello number ${i}`)),
    ...Array.from({ length: VIDEOS }, (_, i) => videoRow(`v${i}`, `A harbour at dawn, take ${i}`)),
  ]);
}

const quote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * Runs the command line under a pseudo-terminal of the given size; resolves with the bytes it wrote and
 * its exit code. `onOutput` sees the bytes so far and the terminal's device (to resize it).
 */
function underPty(
  args: string[],
  env: Record<string, string>,
  ttyFile: string,
  onOutput: (bytes: string, tty: string) => void,
): Promise<{ code: number | null; bytes: string }> {
  const command = `tty > ${quote(ttyFile)} && stty cols ${WIDTH} rows ${HEIGHT} && exec ${[process.execPath, BIN, ...args].map(quote).join(' ')}`;
  const child = spawn('script', ['-qfec', command, '/dev/null'], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: process.env.HOME ?? '/tmp',
      TERM: 'xterm-256color',
      LANG: 'C.UTF-8',
      ...env,
    },
  });
  let bytes = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    bytes += d;
    onOutput(bytes, readFileSync(ttyFile, 'utf8').trim());
  });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, bytes }));
  });
}

test.skipIf(!BUILT || !HAS_SCRIPT)(
  'on a terminal: one frame redrawn in place, never wider than the terminal (resized mid-run), the last one left above the summary',
  async () => {
    const ws = workspace();
    const sim = await startSim({ taskSeconds: 0.8, faults: { errorRates: { chat: 0.1 } } });
    let resized = false;
    // Once the run's first frame is up, the terminal narrows to 60 columns (SIGWINCH): later frames follow.
    const run = await underPty(
      ['run', campaign(ws), '--state', ws.state, '--out', ws.out, '--budget', '5', '--poll-interval', '0.2', '--json'],
      gatewayEnv(sim.baseUrl, KEY),
      ws.path('tty'),
      (bytes, tty) => {
        if (resized || !bytes.includes('gbatch · rows ·')) return;
        resized = true;
        expect(spawnSync('stty', ['-F', tty, 'cols', String(NARROW)]).status).toBe(0);
      },
    );
    expect(resized).toBe(true);
    expect(run.code, run.bytes).toBe(0);
    // The --json summary follows the frame on the same terminal: the view is everything before it.
    const summaryAt = run.bytes.indexOf('{"job"');
    expect(summaryAt).toBeGreaterThan(0);
    const view = replay(run.bytes.slice(0, summaryAt), WIDTH, HEIGHT);
    expect(view.autoWraps, 'lines that overflowed the width').toBe(0);
    expect(view.cursorUps, 'redraws in place').toBeGreaterThan(3);
    // The run's own lines, wrapped by the view.
    for (const line of view.lines) expect(line.length).toBeLessThanOrEqual(WIDTH);
    for (const line of view.lines.filter((l) => !l.startsWith('[gbatch]'))) expect(line.length).toBeLessThan(WIDTH);
    // Many frames were drawn, one is left: the final one, with every row finished.
    expect(run.bytes.split('gbatch · rows ·').length - 1).toBeGreaterThan(3);
    const screen = replay(run.bytes, WIDTH, HEIGHT).lines;
    const frames = screen.filter((l) => l.startsWith('gbatch · rows'));
    expect(frames).toEqual([expect.stringMatching(/^gbatch · rows · done · \d+s elapsed$/)]);
    const top = screen.indexOf(frames[0]!);
    for (let i = top; i < top + 7; i++) expect(screen[i]!.length, screen[i]).toBeLessThan(NARROW);
    expect(screen[top + 1]).toMatch(new RegExp(`^\\[█+\\] ${ROWS}/${ROWS} 100%`));
    expect(screen.slice(top + 2, top + 6)).toEqual([
      expect.stringMatching(new RegExp(`^submit {4}0 in flight · 0 queued · ${ROWS} sent · \\d+ retried$`)),
      expect.stringMatching(/^poll {6}0 tasks · typical \ds · \d+ polls$/),
      `download  0 active · 0 queued · ${VIDEOS} done · 0 failed`,
      expect.stringMatching(/^budget {4}\$0\.\d{4} spent \+ \$0\.00 reserved of \$5\.00$/), // at 60 columns, no room for its bar
    ]);
    // A first job has no history: the forecast line says so (at 60 columns, as much of it as fits).
    expect(screen.slice(top + 6, top + 9)).toContainEqual(
      expect.stringMatching(/^forecast {2}no history( · the table's estimate \$\d+\.\d+ is used)?$/),
    );
    // Only the run's own lines sit above the frame: no copy of an earlier frame was left behind.
    for (const line of screen.slice(0, top))
      expect(line === '' || /^\[gbatch\] |^by later runs|^[a-z]/.test(line), line).toBe(true);
    expect(screen.slice(0, top).some((l) => /^\[|submit {4}|poll {6}/.test(l) && !l.startsWith('[gbatch]'))).toBe(
      false,
    );
    const summary = JSON.parse(run.bytes.slice(summaryAt).replace(/\r\n/g, '\n').trim().split('\n')[0]!) as {
      counts: { downloaded: number };
    };
    expect(summary.counts.downloaded).toBe(ROWS);
  },
  30_000,
);

test.skipIf(!BUILT)(
  'piped: a few timestamped lines, one per change of phase, the last one final',
  async () => {
    const ws = workspace();
    const sim = await startSim({ taskSeconds: 0.3 });
    const run = await runCli(
      ['run', campaign(ws), '--state', ws.state, '--out', ws.out, '--poll-interval', '0.1', '--budget', '5', '--json'],
      { env: gatewayEnv(sim.baseUrl, KEY) },
    );
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stderr.trim().split('\n');
    // The run's own message (the budget in force) is timestamped too.
    expect(lines[0]).toMatch(/^\[gbatch\] \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ budget \$5\.000000 in force; /);
    const progress = lines
      .map((l) => /^\[gbatch\] \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ ([a-z ]+) \| (\d+)\/(\d+) finished /.exec(l))
      .filter((m) => m !== null);
    expect(progress.length).toBeGreaterThanOrEqual(2);
    // A run of a few seconds never reaches the 30 s mark: each line is a new phase.
    for (let i = 1; i < progress.length; i++) expect(progress[i]![1]).not.toBe(progress[i - 1]![1]);
    expect(progress.length).toBeLessThanOrEqual(6);
    expect(progress.at(-1)!.slice(1)).toEqual(['done', String(ROWS), String(ROWS)]);
    expect(lines.length - progress.length, run.stderr).toBe(1); // nothing else: no stray frame, no escape
    expect(run.stderr).not.toMatch(/\x1b/);
    expect(stdoutJson(run).exit_code).toBe(0);
  },
  30_000,
);

const SNAPSHOT_FIELDS = [
  'type',
  'version',
  'job',
  'phase',
  'started_at',
  'now',
  'total',
  'counts',
  'lanes',
  'recent',
  'tasks',
  'money',
  'paused_until',
  'errors',
  'rows_per_min',
  'eta_s',
  'projected_total_usd',
];

test.skipIf(!BUILT)(
  '--progress json: every stderr line is a JSON object: snapshots at most about once a second, the final one done',
  async () => {
    const ws = workspace();
    const sim = await startSim({ taskSeconds: 1, faults: { errorRates: { chat: 0.2 } } });
    const run = await runCli(
      [
        'run',
        campaign(ws),
        '--state',
        ws.state,
        '--out',
        ws.out,
        '--poll-interval',
        '0.1',
        '--budget',
        '5',
        '--progress',
        'json',
        '--json',
      ],
      { env: gatewayEnv(sim.baseUrl, KEY) },
    );
    expect(run.code, run.stderr).toBe(0);
    const records = run.stderr
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, any>);
    const snapshots = records.filter((r) => r.type === 'snapshot');
    expect(
      records.every(
        (r) => r.type === 'snapshot' || (r.type === 'log' && typeof r.message === 'string' && typeof r.at === 'number'),
      ),
    ).toBe(true);
    expect(snapshots.length).toBeGreaterThanOrEqual(2);
    for (const s of snapshots) {
      expect(Object.keys(s).sort()).toEqual([...SNAPSHOT_FIELDS].sort());
      expect(s).toMatchObject({ version: 1, job: 'rows', total: ROWS, money: { budget_usd: 5 } });
      expect(Object.keys(s.lanes).sort()).toEqual(['download', 'poll', 'submit']);
      expect(Object.keys(s.money.by_kind).sort()).toEqual(['text', 'video']);
    }
    for (let i = 1; i < snapshots.length - 1; i++)
      expect(snapshots[i]!.now - snapshots[i - 1]!.now).toBeGreaterThanOrEqual(900);
    const last = snapshots.at(-1)!;
    expect(last).toMatchObject({
      phase: 'done',
      counts: { downloaded: ROWS },
      eta_s: 0,
      lanes: { submit: { in_flight: 0, queued: 0 }, download: { done: VIDEOS } },
    });
    expect(last.tasks.durations.count).toBe(VIDEOS);
    // The chat calls the simulator failed were retried: grouped by cause, counted.
    const retried = last.errors.find((g: { cause: string }) => g.cause.startsWith('retried 5'));
    expect(retried?.count).toBeGreaterThan(0);
    expect(last.projected_total_usd).toBeCloseTo(last.money.actual_usd, 6);
  },
  30_000,
);
