// Every command gbatch suggests for a job started from its job file, as the scheduling guide sets it up
// (/srv/gbatch, the guide's job file with its webhook, an SQLite journal), run as printed: those of
// `status` (text and --json), of the HTML report, of the webhook's body (received by a real local HTTP
// receiver) and of the run's own last lines. Each is run on its own copy of the operator's directory, as
// pasted there (`sh -c`, that cwd), so that alternatives for one row (--resubmit, --abandon) are each tried
// from the same starting point; each must exit as a working command does and do what it says.
import { appendFileSync, cpSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { BUILT, runCli } from '../../helpers/cli.js';
import { KEY, startSim } from '../../helpers/sim.js';
import { runAsPrinted, suggested } from '../../helpers/suggested.js';
import { workspace } from '../../helpers/workspace.js';
import { startHook } from '../../helpers/webhook-server.js';
import { jobHome, type CsvRows } from '../../helpers/guide.js';

const JOB = 'jobs/nightly.json';

test.skipIf(!BUILT)(
  'the commands status, status --json, the HTML report, the webhook and the run suggest for a job file work as printed',
  async () => {
    const ws = workspace();
    const sim = await startSim({
      accounts: [{ key: KEY, balanceUsd: 100, models: ['chat-small', 'video-mini'] }],
      taskSeconds: 0.05,
    });
    const hook = await startHook([]);
    const campaign: CsvRows = [
      {
        id: 'v1',
        kind: 'video',
        model: 'video-mini',
        prompt: 'A paper boat on a pond',
        resolution: '480p',
        duration: 2,
      },
      {
        id: 'no',
        kind: 'chat',
        model: 'chat-large',
        prompt: 'A question for a model this key may not use',
        max_tokens: 16,
      },
    ];
    // No retry policy: the failed and refused rows wait for the operator, and so do the commands for them.
    const { home } = jobHome(ws, hook.url, campaign, { 'poll-interval': 0.05, 'retry-failed': 0 });
    const env = { GATEWAY_BASE_URL: sim.baseUrl, GATEWAY_API_KEY: KEY };
    const cli = (...args: string[]) => runCli(args, { env, cwd: home });

    // First night: the video task fails (refunded), the chat-large row is refused.
    sim.faults.failRate = 1;
    expect((await cli('run', JOB, '--quiet')).code).toBe(1);
    // Second night: a row added to the manifest is sent, and its answer is lost on the way back: uncertain.
    sim.faults.failRate = 0;
    sim.faults.acceptThenDropRate = 1;
    appendFileSync(join(home, 'manifests', 'campaign.csv'), 'lost,chat,chat-small,Name a comet.,,,16\n');
    const night = await cli('run', JOB, '--quiet');
    expect(night.code, night.stderr).toBe(4);
    sim.faults.acceptThenDropRate = 0;

    const status = await cli('status', JOB);
    const statusJson = await cli('status', JOB, '--json');
    const html = await cli('report', JOB, '--format', 'html');
    expect([status.code, statusJson.code, html.code]).toEqual([0, 0, 0]);
    const ended = hook.received.map((r) => r.body).filter((b) => b.event === 'run-ended');
    expect(ended.map((b) => b.exit_code)).toEqual([1, 4]);
    const body = ended[1]!;
    const places: Record<string, string[]> = {
      status: suggested(status.stdout),
      'status --json': suggested(JSON.stringify(JSON.parse(statusJson.stdout), null, 1).replace(/\\n/g, '\n')),
      report: suggested(pageText(html.stdout)),
      webhook: suggested([body.text, body.report, ...(body.attention as string[])].join('\n')),
      run: suggested(night.stdout),
    };
    // Each place suggests something for this job, and names it as it was started: the job file.
    for (const [place, commands] of Object.entries(places)) {
      expect(commands.length, `${place} suggests commands`).toBeGreaterThan(0);
      for (const command of commands) {
        expect(command, place).toMatch(/^gbatch \w+ jobs\/nightly\.json( |$)/);
        // Nothing left for the operator to fill in: no chat row is offered a task id to find.
        expect(command, place).not.toMatch(/<\w+>/);
      }
    }
    expect(places.webhook).toContain(`gbatch report ${JOB}`);
    const all = [...new Set(Object.values(places).flat())];
    expect(all).toEqual(expect.arrayContaining([`gbatch retry ${JOB} --failed`, `gbatch retry ${JOB} --rejected`]));
    expect(all.some((c) => c.startsWith(`gbatch resolve ${JOB} lost `))).toBe(true);

    const states = async (dir: string): Promise<Record<string, string>> => {
      const report = await runCli(['report', JOB, '--format', 'json'], { env, cwd: dir });
      return Object.fromEntries(
        (JSON.parse(report.stdout) as { items: Array<{ id: string; state: string }> }).items.map((i) => [
          i.id,
          i.state,
        ]),
      );
    };
    const before = await states(home);
    expect(before).toEqual({ v1: 'failed', no: 'rejected', lost: 'uncertain' });
    let tried = 0;
    for (const command of all) {
      // The operator's directory as it is now, for this command alone.
      const dir = ws.path(`pasted-${tried++}`);
      cpSync(home, dir, { recursive: true });
      const pasted = await runAsPrinted(command, dir, env);
      const verb = command.split(' ')[1];
      // A run works when it ends as its rows do (the uncertain row still waits: 4, nothing refused as usage);
      // every other command succeeds.
      expect(pasted.code, `${command}:\n${pasted.out}`).toBe(verb === 'run' ? 4 : 0);
      if (verb === 'run') expect(pasted.out, command).toMatch(/Some items are uncertain/);
      const after = await states(dir);
      if (verb === 'retry') {
        const moved = Object.keys(before).filter((id) => after[id] !== before[id]);
        expect(moved.length, `${command} moved a row: ${JSON.stringify(after)}`).toBeGreaterThan(0);
        for (const id of moved) expect(after[id], command).toBe('pending');
      }
      if (verb === 'resolve') expect(after.lost, command).not.toBe('uncertain');
      if (verb === 'status' || verb === 'report') expect(after, command).toEqual(before);
    }
    expect(tried).toBeGreaterThanOrEqual(4);
  },
  120_000,
);

/** The text of an HTML page as a browser shows it: tags gone, entities decoded. */
function pageText(html: string): string {
  const entities: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'", '#x27': "'" };
  return html.replace(/<[^>]+>/g, '\n').replace(/&(amp|lt|gt|quot|#39|#x27);/g, (_, name: string) => entities[name]!);
}
