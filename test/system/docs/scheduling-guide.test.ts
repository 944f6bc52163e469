// docs/scheduling.md, run as written: its crontab lines through `sh -c` with the environment cron gives
// (the crontab's own variables), its systemd units checked by `systemd-analyze verify` and their
// ExecStart run with the Environment= and the credentials directory systemd would give. Only what an
// installation decides is stood in for: /srv/gbatch (GBATCH_HOME, WorkingDirectory=) is a temp folder,
// /usr/local/bin (where `npm install -g` puts gbatch) a folder holding a link to this repo's bin, the
// gateway URL the simulator's, the key file a temp file, and the job file's webhook a local receiver.
import { execFile, spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect, test } from 'vitest';
import { BIN, BUILT } from '../../helpers/cli.js';
import { KEY, posts, startSim } from '../../helpers/sim.js';
import { workspace, type Workspace } from '../../helpers/workspace.js';
import { startHook } from '../../helpers/webhook-server.js';
import { blocks, chatRows, cronCommand, crontab, installedCronEnv, jobHome } from '../../helpers/guide.js';
import { closedPort } from '../../helpers/test-server.js';

const run = promisify(execFile);

test.skipIf(!BUILT)(
  "the crontab runs as written: each line exits 0, writes its log, its journal and its outputs; the job file's webhook hears the end",
  async () => {
    const ws = workspace();
    const sim = await startSim();
    const hook = await startHook([]);
    const { home, bin, keyFile } = jobHome(ws, hook.url);
    const cron = crontab(ws.dir);
    expect(Object.keys(cron.env)).toEqual(
      expect.arrayContaining(['PATH', 'GBATCH_HOME', 'GATEWAY_BASE_URL', 'GATEWAY_API_KEY_FILE']),
    );
    expect(cron.env.PATH).toContain('/usr/local/bin');
    const env = installedCronEnv(cron.env, { home, baseUrl: sim.baseUrl, keyFile, bin });
    const { lines } = cron;
    expect(lines).toHaveLength(2);
    for (const { schedule, command } of lines) {
      expect(schedule).toMatch(/^[\d*,/-]+( [\d*,/-]+){4}$/);
      // cron: an unescaped % would end the command; \% is a %.
      expect(command.replace(/\\%/g, '')).not.toContain('%');
      const result = await run(env.SHELL ?? '/bin/sh', ['-c', cronCommand(command)], { cwd: ws.dir, env }).then(
        () => ({ code: 0 }),
        (err: { code: number; stdout: string; stderr: string }) => ({ code: err.code, out: err.stdout + err.stderr }),
      );
      expect(result, command).toEqual({ code: 0 });
    }
    const today = spawnSync('date', ['+%F'], { encoding: 'utf8' }).stdout.trim();
    for (const log of [`nightly-${today}.log`, `daily-${today}.log`]) {
      const text = readFileSync(join(home, 'log', log), 'utf8');
      expect(text).toMatch(/Done: every item is finished\./);
      expect(text).not.toContain(KEY);
    }
    expect(existsSync(join(home, 'state', 'nightly.db'))).toBe(true);
    expect(existsSync(join(home, 'state', `daily-${today}.db`))).toBe(true);
    expect(
      readFileSync(join(home, 'out', 'nightly', 'results.jsonl'), 'utf8')
        .trim()
        .split('\n'),
    ).toHaveLength(3);
    expect(
      readFileSync(join(home, 'out', `daily-${today}`, 'results.jsonl'), 'utf8')
        .trim()
        .split('\n'),
    ).toHaveLength(3);
    expect(posts(sim.ledger)).toBe(6);
    expect(hook.received.map((r) => [r.body.event, r.body.job, r.body.exit_code])).toEqual([
      ['run-ended', 'nightly', 0],
    ]);
  },
  60_000,
);

test.skipIf(!BUILT)(
  "the systemd service and timer verify, and the service's ExecStart runs as systemd would start it",
  async () => {
    const ws = workspace();
    const sim = await startSim();
    const hook = await startHook([]);
    const { home, bin, keyFile } = jobHome(ws, hook.url);
    const units = blocks('ini');
    expect(units.map((u) => u.file)).toEqual(['gbatch-nightly.service', 'gbatch-nightly.timer']);
    const unitDir = ws.path('units');
    mkdirSync(unitDir);
    const installed = await installUnits(ws, units, unitDir);
    if (existsSync('/usr/bin/systemd-analyze')) {
      const verify = await run('systemd-analyze', ['verify', ...units.map((u) => join(unitDir, u.file!))]).then(
        (r) => ({ code: 0, out: r.stdout + r.stderr }),
        (err: { code: number; stdout: string; stderr: string }) => ({ code: err.code, out: err.stdout + err.stderr }),
      );
      expect(verify).toEqual({ code: 0, out: '' });
    }

    const service = parseUnit(readFileSync(join(unitDir, units[0]!.file!), 'utf8'));
    const credentials = ws.path('credentials');
    mkdirSync(credentials);
    for (const spec of service.LoadCredential ?? []) {
      const [name, source] = spec.split(':') as [string, string];
      expect(source).toBe('/etc/gbatch/api-key');
      copyFileSync(keyFile, join(credentials, name));
    }
    const specifiers = (text: string) => text.replace(/%d/g, credentials).replace(/%%/g, '%');
    const env: Record<string, string> = {
      PATH: `${bin}:/usr/local/sbin:/usr/sbin:/usr/bin:/sbin:/bin`,
      CREDENTIALS_DIRECTORY: credentials,
      HOME: ws.dir,
    };
    for (const assignment of service.Environment ?? []) {
      const [name, ...value] = specifiers(assignment).split('=');
      env[name!] = value.join('=');
    }
    expect(env.GATEWAY_BASE_URL).toMatch(/^https:\/\//);
    env.GATEWAY_BASE_URL = sim.baseUrl;
    expect(service.WorkingDirectory).toEqual(['/srv/gbatch']);
    const [exe, ...args] = specifiers(service.ExecStart![0]!).split(/\s+/);
    // The path `npm prefix -g` gives, where `npm install -g` put the command: it exists.
    expect(exe).toBe(installed);
    expect(existsSync(exe!)).toBe(true);
    const child = spawn(exe!, args, { cwd: home, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      output += d;
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      output += d;
    });
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
    expect({ code, output }).toMatchObject({ code: 0 });
    expect(output).toContain('Done: every item is finished.');
    expect(
      readFileSync(join(home, 'out', 'nightly', 'results.jsonl'), 'utf8')
        .trim()
        .split('\n'),
    ).toHaveLength(3);
    expect(hook.received.map((r) => r.body.exit_code)).toEqual([0]);
    // The codes that mean "carry on tomorrow" (75) and "skipped, another run had the job" (5) do not fail the service.
    expect(service.SuccessExitStatus!.join(' ').split(/\s+/).sort()).toEqual(['5', '75']);
  },
  60_000,
);

test.skipIf(!BUILT)(
  'the rehearsal runs as written: a bad night against a failing simulator, its restart on --state, the fault lifted through --admin, a good night that ends exit 0',
  async () => {
    const ws = workspace();
    const hook = await startHook([]);
    const videos = [1, 2, 3].map((i) => ({
      id: `v-${i}`,
      kind: 'video',
      model: 'video-mini',
      prompt: `A quiet street, take ${i}`,
      resolution: '480p',
      duration: 2,
    }));
    const { home, bin, keyFile } = jobHome(ws, hook.url, [...videos, ...chatRows('campaign').slice(0, 2)]);
    const [jobFile] = blocks('json').filter((b) => b.file === 'jobs/rehearsal.json');
    const [script] = blocks('sh').filter((b) => b.file === 'rehearsal.sh');
    expect(jobFile, 'the guide gives the rehearsal its job file').toBeDefined();
    expect(script, 'the guide gives the rehearsal as rehearsal.sh').toBeDefined();
    writeFileSync(join(home, jobFile!.file!), jobFile!.text);
    // The port is the installation's choice: one nothing listens on, for this test.
    expect(script!.text).toContain('8090');
    const port = String(await closedPort());
    const cron = crontab(ws.dir);
    const env = installedCronEnv(cron.env, { home, baseUrl: 'https://gateway.example.com/v1', keyFile, bin });
    const result = await run('/bin/sh', ['-c', script!.text.replaceAll('8090', port)], {
      cwd: home,
      env,
      timeout: 50_000,
    }).then(
      (r) => ({ code: 0, out: r.stdout + r.stderr }),
      (err: { code: number; stdout: string; stderr: string }) => ({ code: err.code, out: err.stdout + err.stderr }),
    );
    expect(result.code, result.out).toBe(0);
    expect(result.out).toContain('bad night: exit 75');
    expect(result.out).toContain('good night: exit 0');
    expect(result.out).toContain('"fail-rate":0');
    const simLog = readFileSync(join(home, 'log', 'sim-rehearsal.log'), 'utf8');
    expect(simLog).toMatch(/state state\/sim-rehearsal\.json: restored 3 task\(s\)/);
    expect(simLog).toContain('faults changed by POST /__sim/faults');
    // What the gateway saw, from the state it kept across the restart: each video failed once, then succeeded
    // once; no chat was answered twice.
    const state = JSON.parse(readFileSync(join(home, 'state', 'sim-rehearsal.json'), 'utf8')) as {
      tasks: Array<{ prompt: string; state: string }>;
      ledger: { submissionsByPrompt: Record<string, number> };
    };
    for (const video of videos) {
      expect(state.tasks.filter((t) => t.prompt === video.prompt).map((t) => t.state)).toEqual(['FAILURE', 'SUCCESS']);
    }
    expect(Object.values(state.ledger.submissionsByPrompt).filter((n) => n > 2)).toEqual([]);
    const out = join(home, 'out', 'rehearsal');
    expect(readdirSync(out).filter((f) => f.endsWith('.mp4'))).toHaveLength(3);
    // One line per row: the three videos and the two chats.
    expect(readFileSync(join(out, 'results.jsonl'), 'utf8').trim().split('\n')).toHaveLength(5);
    expect(result.out + simLog).not.toContain(KEY);
  },
  60_000,
);

/**
 * The guide's install-units.sh, run as written in a folder holding the guide's units, with `sudo` a
 * pass-through, /etc/systemd/system a temp folder and an npm prefix (NPM_CONFIG_PREFIX) whose bin/gbatch
 * links to this repo's bin as `npm install -g .` links it. Returns the path the service must start.
 */
async function installUnits(
  ws: Workspace,
  units: Array<{ file: string | undefined; text: string }>,
  unitDir: string,
): Promise<string> {
  const [script] = blocks('sh').filter((b) => b.file === 'install-units.sh');
  expect(script, 'the guide installs the units with install-units.sh').toBeDefined();
  const prefix = ws.path('npm-prefix');
  mkdirSync(join(prefix, 'bin'), { recursive: true });
  symlinkSync(BIN, join(prefix, 'bin', 'gbatch'));
  const tools = ws.path('tools');
  mkdirSync(tools);
  writeFileSync(join(tools, 'sudo'), '#!/bin/sh\nexec "$@"\n', { mode: 0o755 });
  const source = ws.path('unit-source');
  mkdirSync(source);
  for (const unit of units) writeFileSync(join(source, unit.file!), unit.text);
  const env = { ...process.env, PATH: `${tools}:${process.env.PATH ?? '/usr/bin:/bin'}`, NPM_CONFIG_PREFIX: prefix };
  await run('sh', ['-ec', script!.text.replaceAll('/etc/systemd/system/', `${unitDir}/`)], { cwd: source, env });
  return join(prefix, 'bin', 'gbatch');
}

/** The [Service] section's settings (a setting given several times keeps each value). */
function parseUnit(text: string): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  let section = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const header = /^\[(.+)\]$/.exec(line);
    if (header) {
      section = header[1]!;
      continue;
    }
    if (section !== 'Service') continue;
    const at = line.indexOf('=');
    (out[line.slice(0, at)] ??= []).push(line.slice(at + 1));
  }
  return out;
}
