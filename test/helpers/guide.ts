// docs/scheduling.md as the tests read it: its fenced blocks, its crontab (the variables cron sets and the
// lines it runs), and a /srv/gbatch laid out as the guide says, with the guide's own job file.
import { chmodSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { BIN } from './cli.js';
import { csvText, type CsvRow } from './manifests.js';
import { KEY } from './sim.js';
import { ROOT, type Workspace } from './workspace.js';

export const GUIDE = readFileSync(join(ROOT, 'docs', 'scheduling.md'), 'utf8');

/** The fenced blocks whose info string starts with `lang`, with their `file=` name if any. */
export function blocks(lang: string): Array<{ file: string | undefined; text: string }> {
  const found: Array<{ file: string | undefined; text: string }> = [];
  for (const m of GUIDE.matchAll(/^```(\S+)([^\n]*)\n([\s\S]*?)^```$/gm)) {
    if (m[1] !== lang) continue;
    found.push({ file: /file=(\S+)/.exec(m[2]!)?.[1], text: m[3]! });
  }
  return found;
}

/** The guide's crontab: the variables it sets (beside what cron sets itself) and the command of each line. */
export function crontab(home: string): {
  env: Record<string, string>;
  lines: Array<{ schedule: string; command: string }>;
} {
  const [block] = blocks('crontab');
  const env: Record<string, string> = { HOME: home, LOGNAME: 'gbatch' }; // what cron sets itself
  const lines: Array<{ schedule: string; command: string }> = [];
  for (const raw of block!.text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const assignment = /^([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$/.exec(line);
    if (assignment) env[assignment[1]!] = assignment[2]!;
    else lines.push({ schedule: line.split(/\s+/).slice(0, 5).join(' '), command: line.replace(/^(\S+\s+){5}/, '') });
  }
  return { env, lines };
}

/** A crontab command as cron hands it to the shell: `\%` is a `%`. */
export function cronCommand(command: string): string {
  return command.replace(/\\%/g, '%');
}

export type CsvRows = CsvRow[];

/** Three chat rows per manifest, ids `<prefix>-1..3`. */
export function chatRows(prefix: string): CsvRows {
  return [1, 2, 3].map((i) => ({
    id: `${prefix}-${i}`,
    kind: 'chat',
    model: 'chat-small',
    prompt: `Say ${prefix} ${i}`,
    max_tokens: 16,
  }));
}

/**
 * A /srv/gbatch as the guide lays it out, with the guide's job file (its webhook pointed at `hookUrl`, and
 * `options` added: what a test needs at its own time scale), its manifest holding `campaign`, and today's
 * daily manifest. Returns the folder, a folder where `gbatch` is installed, and the key file.
 */
export function jobHome(
  ws: Workspace,
  hookUrl: string,
  campaign: CsvRows = chatRows('campaign'),
  options: Record<string, unknown> = {},
): { home: string; bin: string; keyFile: string } {
  const home = ws.path('srv-gbatch');
  for (const sub of ['jobs', 'manifests', 'log']) mkdirSync(join(home, sub), { recursive: true });
  const [jobFile] = blocks('json').filter((b) => b.text.includes('"name": "nightly"'));
  const job = JSON.parse(jobFile!.text) as {
    manifest: string;
    options: Record<string, unknown> & { notify: string[] };
  };
  job.options.notify = [hookUrl];
  Object.assign(job.options, options);
  writeFileSync(join(home, 'jobs', 'nightly.json'), JSON.stringify(job));
  const columns = [...new Set(campaign.flatMap((row) => Object.keys(row)))];
  writeFileSync(join(home, 'jobs', job.manifest), csvText(columns, campaign));
  const today = spawnSync('date', ['+%F'], { encoding: 'utf8' }).stdout.trim();
  writeFileSync(
    join(home, 'manifests', `${today}.csv`),
    csvText(['id', 'kind', 'model', 'prompt', 'max_tokens'], chatRows('daily')),
  );
  // Where `npm install -g` puts the command.
  const bin = ws.path('usr-local-bin');
  mkdirSync(bin);
  symlinkSync(BIN, join(bin, 'gbatch'));
  // Beside the node it installed with (the node running this test): another node on the PATH's later folders
  // may not load this install's native addon.
  symlinkSync(process.execPath, join(bin, 'node'));
  const keyFile = ws.path('api-key');
  writeFileSync(join(keyFile), `${KEY}\n`);
  chmodSync(keyFile, 0o600);
  return { home, bin, keyFile };
}

/**
 * The crontab's variables with what an installation decides stood in for: its home, gateway, key file, and where gbatch
 * is.
 */
export function installedCronEnv(
  env: Record<string, string>,
  at: { home: string; baseUrl: string; keyFile: string; bin: string },
): Record<string, string> {
  return {
    ...env,
    GBATCH_HOME: at.home,
    GATEWAY_BASE_URL: at.baseUrl,
    GATEWAY_API_KEY_FILE: at.keyFile,
    PATH: env.PATH!.replace('/usr/local/bin', at.bin),
  };
}
