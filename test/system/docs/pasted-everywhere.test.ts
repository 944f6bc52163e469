// Every surface tells one story (issue 32): the commands that status (text, --json, --check), the run's last
// lines, the report (text, json, html), the dashboard's served pages and the notification's body suggest, for a
// job addressed by its job file, by a job file of several manifests and by --state / --journal, on SQLite and on
// PostgreSQL, each run through `sh -c` as pasted: its exit code and its effect on the journal checked. One run per
// job, read by every surface.
import { mkdirSync, writeFileSync } from 'node:fs';
import { expect, test } from 'vitest';
import { openQueries } from '../../../src/journal/open-store.js';
import { BUILT, gatewayEnv, runCli, type CliOptions, type CliResult } from '../../helpers/cli.js';
import { chatRow, writeJsonl } from '../../helpers/manifests.js';
import { PG_TEST_URL, pgAvailable, usePgSchema } from '../../helpers/postgres.js';
import { KEY, startSim } from '../../helpers/sim.js';
import { runAsPrinted, suggested } from '../../helpers/suggested.js';
import { batchEnd, chatLine, client, startServe, submitBatch } from '../../helpers/serve.js';
import { bearer, startUiChild, type UiChild } from '../../helpers/ui.js';
import { startHook, type Hook } from '../../helpers/webhook-server.js';
import { workspace, type Workspace } from '../../helpers/workspace.js';

const pg = usePgSchema('gbatch_pasted');

interface Addressing {
  /** The job's name in its journal. */
  name: string;
  /** The job's page on the dashboard: jobs/<page> (an SQLite journal's file name, a database's job name). */
  page: string;
  /** The row the gateway refuses. */
  refused: string;
  /** What `gbatch run` is given, with the journal's flags. */
  run: string[];
  /** How an operator names the job to status and report. */
  as: string[];
  /** The job's journal: an SQLite file or the database, read in process for the rows' states. */
  journal: string;
}

/** The three ways of addressing a job, each a job with one answered row and one the gateway refuses. */
function jobs(ws: Workspace, journal: string | undefined, hook: Hook, database: string): Addressing[] {
  const rows = (prefix: string) => [chatRow(`${prefix}-ok`, 'Name a star.'), refused(`${prefix}-no`)];
  writeJsonl(ws.path('one.jsonl'), rows('f'));
  writeJsonl(ws.path('a.jsonl'), [chatRow('p-ok', 'Name a river.')]);
  writeJsonl(ws.path('b.jsonl'), [refused('p-no')]);
  writeJsonl(ws.path('elsewhere.jsonl'), rows('s'));
  mkdirSync(ws.path('jobs'));
  const options = { 'retry-failed': 0, notify: [hook.url], ...(journal ? { journal } : {}) };
  writeFileSync(ws.path('jobs', 'nightly.json'), JSON.stringify({ manifest: '../one.jsonl', options }));
  writeFileSync(ws.path('jobs', 'pair.json'), JSON.stringify({ manifest: ['../a.jsonl', '../b.jsonl'], options }));
  const place = journal ? ['--journal', journal] : ['--state', 'state/kept-apart.db'];
  const at = (page: string) => (journal ? database : ws.path('state', `${page}.db`));
  return [
    {
      name: 'nightly',
      page: 'nightly',
      refused: 'f-no',
      run: ['jobs/nightly.json'],
      as: ['jobs/nightly.json'],
      journal: at('nightly'),
    },
    {
      name: 'pair',
      page: 'pair',
      refused: 'p-no',
      run: ['jobs/pair.json'],
      as: ['jobs/pair.json'],
      journal: at('pair'),
    },
    {
      name: 'elsewhere',
      page: journal ? 'elsewhere' : 'kept-apart',
      refused: 's-no',
      run: ['elsewhere.jsonl', ...place, '--retry-failed', '0', '--notify', hook.url],
      as: ['elsewhere', ...place],
      journal: at('kept-apart'),
    },
  ];
}

const refused = (id: string) => chatRow(id, 'A model this key may not use', { model: 'chat-large' });

for (const on of ['sqlite', 'postgres'] as const) {
  test.skipIf(!BUILT || (on === 'postgres' && !pgAvailable()))(
    `${on}: every surface's commands, for every way of addressing a job, work as pasted`,
    async () => {
      const ws = workspace();
      const sim = await startSim({ accounts: [{ key: KEY, balanceUsd: 100, models: ['chat-small'] }] });
      const hook = await startHook([]);
      // The schema goes by PGOPTIONS, as a site's own settings would: the URL an operator is shown is the
      // one the job was given (gbatch prints a database URL without its query, which may hold a password).
      const env = {
        ...gatewayEnv(sim.baseUrl, KEY),
        ...(on === 'postgres' ? { PGOPTIONS: `-c search_path=${pg.schema}` } : {}),
      };
      const cli = (...args: string[]) => runCli(args, { env, cwd: ws.dir });
      const addressings = jobs(ws, on === 'postgres' ? PG_TEST_URL : undefined, hook, pg.url());

      // The jobs' journals are apart: they run, and are read and acted on, side by side.
      const runs = new Map<string, CliResult>();
      await Promise.all(
        addressings.map(async (job) => {
          const run = await cli('run', ...job.run);
          expect(run.code, `${job.name}: ${run.stderr}`).toBe(1);
          runs.set(job.name, run);
        }),
      );
      const ui = await startDashboard(on, ws.path('state'), { cwd: ws.dir, env });
      try {
        const page = async (path: string) => {
          const res = await fetch(`${ui.url}${path}`, { headers: bearer() });
          expect(res.status, path).toBe(200);
          return pageText(await res.text());
        };
        const list = await page('');
        const checked = async (job: Addressing) => {
          const [status, json, check, table, reportJson, html, jobPage] = await Promise.all([
            cli('status', ...job.as),
            cli('status', ...job.as, '--json'),
            cli('status', ...job.as, '--check'),
            cli('report', ...job.as),
            cli('report', ...job.as, '--format', 'json'),
            cli('report', ...job.as, '--format', 'html'),
            page(`jobs/${job.page}`),
          ]);
          for (const read of [status, json, table, reportJson, html]) expect(read.code, read.stderr).toBe(0);
          const body = hook.received
            .map((r) => r.body as Record<string, unknown>)
            .find((b) => b.event === 'run-ended' && b.job === job.name);
          expect(body, `${job.name}: a run-ended notification`).toBeDefined();
          const surfaces: Record<string, string[]> = {
            status: suggested(status.stdout),
            'status --json': suggested(jsonText(json.stdout)),
            'status --check': suggested(check.stdout),
            run: suggested(runs.get(job.name)!.stdout),
            report: suggested(table.stdout),
            'report json': suggested(jsonText(reportJson.stdout)),
            'report html': suggested(pageText(html.stdout)),
            dashboard: [...suggested(jobPage), ...suggested(list).filter((c) => c.includes(`${job.page}`))],
            webhook: suggested([body!.text, body!.report, ...((body!.attention as string[]) ?? [])].join('\n')),
          };
          // Each surface but --check (a refused row is no health problem) offers the refused row's retry, naming
          // the job as it knows it: the run as it was started, the dashboard by its journal.
          const retries = (place: string) => [
            ...new Set(surfaces[place]!.filter((c) => /^gbatch retry \S.* --rejected$/.test(c))),
          ];
          for (const place of Object.keys(surfaces).filter((p) => p !== 'status --check' && p !== 'report'))
            expect(retries(place), `${job.name}, ${place}`).toHaveLength(1);
          expect(check.code, check.stdout).toBe(0);
          const commands = [...new Set(Object.values(surfaces).flat())];
          for (const command of commands) expect(command, job.name).not.toMatch(/<\w+>|,\S*\.jsonl/);

          // Reads first, then the retries naming the row, the bulk ones (which then find nothing left), the runs.
          const order = (c: string) =>
            c.startsWith('gbatch run ') ? 3 : c.startsWith('gbatch retry ') ? (c.endsWith(' --rejected') ? 2 : 1) : 0;
          const before = await states(job);
          for (const command of commands.sort((a, b) => order(a) - order(b))) {
            const pasted = await runAsPrinted(command, ws.dir, env);
            const verb = command.split(' ')[1]!;
            if (verb === 'run') {
              // The refused row is refused again: the run finished, one row rejected.
              expect(pasted.code, `${command}: ${pasted.out}`).toBe(1);
              expect(await states(job), command).toEqual(before);
              continue;
            }
            expect(pasted.code, `${command}: ${pasted.out}`).toBe(0);
            if (verb === 'retry') {
              expect((await states(job))[job.refused], command).toBe('pending');
              // Each surface's retry is an alternative to the others: the job's next run brings the row back to
              // where the operator found it before the next one is pasted.
              expect((await cli('run', ...job.run)).code, command).toBe(1);
              expect(await states(job), command).toEqual(before);
            } else expect(await states(job), command).toEqual(before);
          }
          // Retried, the row waits for the next run; the command status gives for it works as pasted.
          expect((await runAsPrinted(retries('status')[0]!, ws.dir, env)).code).toBe(0);
          const carryOn = suggested((await cli('status', ...job.as)).stdout).filter((c) => c.startsWith('gbatch run '));
          expect(carryOn, job.name).toHaveLength(1);
          const again = await runAsPrinted(carryOn[0]!, ws.dir, env);
          expect(again.code, `${carryOn[0]}: ${again.out}`).toBe(1);
          expect(await states(job), carryOn[0]).toEqual(before);
        };
        await Promise.all(addressings.map(checked));
      } finally {
        await ui.stop();
      }
    },
    300_000,
  );
}

// A serve batch is final once it ends: its journal never changes, so every surface offers only what reads it, and
// says what the client does instead of a command the batch would refuse.
for (const on of ['sqlite', 'postgres'] as const) {
  test.skipIf(!BUILT || (on === 'postgres' && !pgAvailable()))(
    `${on}: a serve batch's surfaces offer only commands that work on a final batch`,
    async () => {
      const ws = workspace();
      const sim = await startSim({ accounts: [{ key: KEY, balanceUsd: 100, models: ['chat-small'] }] });
      const env = {
        ...gatewayEnv(sim.baseUrl, KEY),
        ...(on === 'postgres' ? { PGOPTIONS: `-c search_path=${pg.schema}` } : {}),
      };
      const server = await startServe({
        data: ws.path('data'),
        gateway: sim.baseUrl,
        env,
        ...(on === 'postgres' ? { args: ['--journal', PG_TEST_URL] } : {}),
      });
      const created = await submitBatch(client(server), ws.path('in.jsonl'), [
        chatLine('ok', 'Name a star.'),
        chatLine('no', 'A model this key may not use', { model: 'chat-large' }),
      ]);
      expect(await batchEnd(server, created.id)).toBe('completed');
      const cli = (...args: string[]) => runCli(args, { env, cwd: ws.dir });
      const job: Addressing = {
        name: created.id,
        page: created.id,
        refused: 'no',
        run: [],
        as:
          on === 'postgres'
            ? [created.id, '--journal', PG_TEST_URL]
            : [created.id, '--state', ws.path('data', 'journals', `${created.id}.db`)],
        journal: on === 'postgres' ? pg.url() : ws.path('data', 'journals', `${created.id}.db`),
      };
      const ui = await startDashboard(on, ws.path('data', 'journals'), { cwd: ws.dir, env }, ['--allow-actions']);
      try {
        const [status, json, check, table, reportJson, html, jobPage] = await Promise.all([
          cli('status', ...job.as),
          cli('status', ...job.as, '--json'),
          cli('status', ...job.as, '--check'),
          cli('report', ...job.as),
          cli('report', ...job.as, '--format', 'json'),
          cli('report', ...job.as, '--format', 'html'),
          fetch(`${ui.url}jobs/${job.page}`, { headers: bearer() }).then(async (r) => pageText(await r.text())),
        ]);
        for (const read of [status, json, check, table, reportJson, html]) expect(read.code, read.stderr).toBe(0);
        const texts: Record<string, string> = {
          status: status.stdout,
          'status --json': jsonText(json.stdout),
          'status --check': check.stdout,
          report: table.stdout,
          'report json': jsonText(reportJson.stdout),
          'report html': pageText(html.stdout),
          dashboard: jobPage,
        };
        // The refused row is named with what the client can do about it: a new batch, never a command.
        for (const place of ['status', 'status --json', 'report html'])
          expect(texts[place], place).toContain('submit a new batch');
        // --check's ok line offers no run of a batch a run would be refused on: it says the batch is final.
        expect(check.stdout).toMatch(
          /^ok: nothing needs an operator \(no run: the gbatch serve batch batch_\w+ is completed/,
        );
        expect(check.stdout).not.toContain('would exit');
        const before = await states(job);
        expect(before).toEqual({ ok: 'downloaded', no: 'rejected' });
        const commands = [...new Set(Object.values(texts).flatMap(suggested))];
        expect(commands.filter((c) => c.startsWith('gbatch report ')).length).toBeGreaterThan(0);
        for (const command of commands) {
          const pasted = await runAsPrinted(command, ws.dir, env);
          expect(pasted.code, `${command}: ${pasted.out}`).toBe(0);
          expect(await states(job), command).toEqual(before);
        }
      } finally {
        await ui.stop();
        await server.stop();
      }
    },
    180_000,
  );
}

/**
 * The dashboard on the journals of `on`: the database (its schema by PGOPTIONS, as for the jobs) or the SQLite
 * files of `stateDir`.
 */
function startDashboard(
  on: 'sqlite' | 'postgres',
  stateDir: string,
  options: CliOptions,
  extra: string[] = [],
): Promise<UiChild> {
  return startUiChild(
    [...(on === 'postgres' ? ['--journal', PG_TEST_URL] : ['--state-dir', stateDir]), ...extra],
    options,
  );
}

/** Each row's state, read from the job's journal itself (read-only, as status and report read it). */
async function states(job: Addressing): Promise<Record<string, string>> {
  const journal = await openQueries(job.journal, { job: job.name });
  try {
    const byId: Record<string, string> = {};
    for await (const item of journal.iterate()) byId[item.id] = item.state;
    return byId;
  } finally {
    await journal.close();
  }
}

/** A JSON document with each string on lines of its own, as an operator reads it. */
function jsonText(text: string): string {
  return JSON.stringify(JSON.parse(text), null, 1).replace(/\\n/g, '\n');
}

/** The text of an HTML page as a browser shows it: tags gone, entities decoded. */
function pageText(html: string): string {
  const entities: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'", '#x27': "'" };
  return html.replace(/<[^>]+>/g, '\n').replace(/&(amp|lt|gt|quot|#39|#x27);/g, (_, name: string) => entities[name]!);
}
