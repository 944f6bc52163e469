// Issue 10 item 20: each command's --help lists exactly the flags of its own table, and its exit codes.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { run as demo, DEMO_OPTIONS } from '../../src/cli/commands/demo.js';
import { run as plan } from '../../src/cli/commands/plan.js';
import { run as report, OPTIONS as REPORT_OPTIONS } from '../../src/cli/commands/report.js';
import { run as resolve, OPTIONS as RESOLVE_OPTIONS } from '../../src/cli/commands/resolve.js';
import { run as retry, OPTIONS as RETRY_OPTIONS } from '../../src/cli/commands/retry.js';
import { run as cancel, OPTIONS as CANCEL_OPTIONS } from '../../src/cli/commands/cancel.js';
import { run as forget, OPTIONS as FORGET_OPTIONS } from '../../src/cli/commands/forget.js';
import { run as journal, OPTIONS as JOURNAL_OPTIONS } from '../../src/cli/commands/journal.js';
import { run as runCommand } from '../../src/cli/commands/run.js';
import { run as serve } from '../../src/cli/commands/serve.js';
import { run as sim } from '../../src/cli/commands/sim.js';
import { run as status, OPTIONS as STATUS_OPTIONS } from '../../src/cli/commands/status.js';
import { run as jobs, OPTIONS as JOBS_OPTIONS } from '../../src/cli/commands/jobs.js';
import { run as models, OPTIONS as MODELS_OPTIONS } from '../../src/cli/commands/models.js';
import { run as history, OPTIONS as HISTORY_OPTIONS } from '../../src/cli/commands/history.js';
import { EXIT_CODES, type CommandName } from '../../src/core/command-exit-codes.js';
import { UsageError, type OptionTable } from '../../src/job/options.js';
import { PLAN_ONLY_OPTIONS, PLAN_OPTIONS, RUN_OPTIONS } from '../../src/job/run-options.js';
import { SIM_OPTIONS } from '../../src/sim/cli-options.js';
import { SERVE_OPTIONS } from '../../src/serve/options.js';
import { run as ui } from '../../src/cli/commands/ui.js';
import { UI_OPTIONS } from '../../src/ui/options.js';

const COMMANDS: Record<CommandName, { run: (argv: string[]) => Promise<number>; table: OptionTable }> = {
  plan: { run: plan, table: PLAN_OPTIONS },
  run: { run: runCommand, table: RUN_OPTIONS },
  status: { run: status, table: STATUS_OPTIONS },
  report: { run: report, table: REPORT_OPTIONS },
  resolve: { run: resolve, table: RESOLVE_OPTIONS },
  retry: { run: retry, table: RETRY_OPTIONS },
  forget: { run: forget, table: FORGET_OPTIONS },
  cancel: { run: cancel, table: CANCEL_OPTIONS },
  journal: { run: journal, table: JOURNAL_OPTIONS },
  history: { run: history, table: HISTORY_OPTIONS },
  jobs: { run: jobs, table: JOBS_OPTIONS },
  models: { run: models, table: MODELS_OPTIONS },
  serve: { run: serve, table: SERVE_OPTIONS },
  ui: { run: ui, table: UI_OPTIONS },
  sim: { run: sim, table: SIM_OPTIONS },
  demo: { run: demo, table: DEMO_OPTIONS },
};

afterEach(() => vi.restoreAllMocks());

async function helpOf(command: CommandName): Promise<string> {
  let out = '';
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    out += String(chunk);
    return true;
  });
  const code = await COMMANDS[command].run(['--help']);
  vi.restoreAllMocks();
  expect(code).toBe(0);
  return out;
}

/** The flags in the Options section: each row starts with `-x, --name` or `--name`. */
function listedFlags(help: string): string[] {
  const section = help.slice(help.indexOf('Options:'), help.indexOf('Exit codes:'));
  return [...section.matchAll(/^ {2}(?:-\w, )?--([a-z0-9-]+)/gm)].map((m) => m[1]!);
}

describe('--help', () => {
  it.each(Object.keys(COMMANDS) as CommandName[])(
    '%s lists exactly its own flags, then its exit codes',
    async (command) => {
      const help = await helpOf(command);
      expect(help).toMatch(new RegExp(`^Usage: gbatch ${command} `));
      expect(listedFlags(help).sort()).toEqual(Object.keys(COMMANDS[command].table).sort());
      const exitSection = help.slice(help.indexOf('Exit codes:'));
      expect(help.indexOf('Exit codes:')).toBeGreaterThan(help.indexOf('Options:'));
      for (const [code, meaning] of EXIT_CODES[command]) {
        expect(exitSection).toContain(meaning);
        if (code >= 0)
          expect(exitSection).toMatch(
            new RegExp(`^ {2}${code} +${meaning.slice(0, 10).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`, 'm'),
          );
      }
    },
  );

  it('plan shows only the run flags plan uses; a run-only flag is refused by plan with a pointer to run', async () => {
    const help = await helpOf('plan');
    for (const runOnly of ['concurrency', 'no-wait', 'poll-interval', 'out', 'deadline', 'ingest-only']) {
      expect(listedFlags(help)).not.toContain(runOnly);
    }
    // Plan's own flags are the only ones run does not have.
    expect(Object.keys(PLAN_OPTIONS).filter((name) => !(name in RUN_OPTIONS))).toEqual(Object.keys(PLAN_ONLY_OPTIONS));
    await expect(plan(['rows.csv', '--concurrency', '4'])).rejects.toThrow(UsageError);
    await expect(plan(['rows.csv', '--concurrency', '4'])).rejects.toThrow(
      '`--concurrency` is an option of `gbatch run`; plan does not use it',
    );
    await expect(plan(['rows.csv', '--nosuch'])).rejects.toThrow("Unknown option '--nosuch'");
  });

  it('run lists every run flag, 4 > 3 > 75 > 1 > 0 included', async () => {
    const help = await helpOf('run');
    expect(listedFlags(help)).toEqual(Object.keys(RUN_OPTIONS));
    expect(help).toContain('4 > 3 > 75 > 1 > 0');
  });
});
