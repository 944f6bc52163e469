import { describe, expect, it } from 'vitest';
import { journalArgOf, planCommandOf, runCommandOf, type JobAddress } from '../../src/core/job-address.js';
import { runNowWords, standingOf, type StandingFacts } from '../../src/core/standing.js';
import { ITEM_STATES, type ItemState } from '../../src/core/states.js';

const counts = (some: Partial<Record<ItemState, number>> = {}): Record<ItemState, number> =>
  ({ ...Object.fromEntries(ITEM_STATES.map((s) => [s, 0])), ...some }) as Record<ItemState, number>;

const ended = (stopReason: string | null, exitCode: number, message: string | null = null) => ({
  ended: true,
  exitCode,
  stopReason,
  message,
});

const PG = 'postgres://night@db.internal:5432/gbatch';

/** Every way a job is addressed: how commands name its journal, and how `gbatch run` starts it again. */
const ADDRESSES: Array<{ how: string; address: JobAddress; journal: string; run: string | null }> = [
  {
    how: 'a job file, SQLite default journal',
    address: {
      named: 'jobs/nightly.json',
      namedFindsJournal: true,
      name: 'nightly',
      journal: { adapter: 'sqlite', file: 'state/nightly.db', isDefault: true },
      source: 'jobs/nightly.json',
      sourceFindsJournal: true,
    },
    journal: 'jobs/nightly.json',
    run: 'gbatch run jobs/nightly.json',
  },
  {
    how: 'one manifest',
    address: {
      named: 'manifests/labels.csv',
      namedFindsJournal: true,
      name: 'labels',
      journal: { adapter: 'sqlite', file: 'state/labels.db', isDefault: true },
      source: 'manifests/labels.csv',
      sourceFindsJournal: true,
    },
    journal: 'manifests/labels.csv',
    run: 'gbatch run manifests/labels.csv',
  },
  {
    // The dashboard names a job by its journal; its runs were started from a job file of two manifests.
    how: 'several manifests (by its job name, its runs from a job file)',
    address: {
      name: 'campaign',
      journal: { adapter: 'sqlite', file: 'state/campaign.db', isDefault: true },
      source: 'jobs/campaign.json',
      sourceFindsJournal: true,
    },
    journal: 'campaign',
    run: 'gbatch run jobs/campaign.json',
  },
  {
    // `report crash`: the job's name where `run` needs its job file or manifest.
    how: 'a job name whose runs used a manifest',
    address: {
      named: 'crash',
      namedFindsJournal: true,
      name: 'crash',
      journal: { adapter: 'sqlite', file: 'state/crash.db', isDefault: true },
      source: 'manifests/crash.csv',
      sourceFindsJournal: true,
    },
    journal: 'crash',
    run: 'gbatch run manifests/crash.csv',
  },
  {
    how: 'a --state file',
    address: {
      name: 'nightly',
      journal: { adapter: 'sqlite', file: '/var/lib/gbatch/night 1.db', isDefault: false },
      source: 'jobs/nightly.json',
      sourceFindsJournal: false,
    },
    journal: "--state '/var/lib/gbatch/night 1.db'",
    run: "gbatch run jobs/nightly.json --state '/var/lib/gbatch/night 1.db'",
  },
  {
    how: 'PostgreSQL named by GBATCH_JOURNAL_URL',
    address: {
      named: 'jobs/nightly.json',
      namedFindsJournal: true,
      name: 'nightly',
      journal: { adapter: 'postgres', url: PG, fromEnv: true },
      source: 'jobs/nightly.json',
      sourceFindsJournal: true,
    },
    journal: 'jobs/nightly.json',
    run: 'gbatch run jobs/nightly.json',
  },
  {
    how: 'PostgreSQL named by --journal',
    address: {
      named: 'jobs/nightly.json',
      namedFindsJournal: false,
      name: 'nightly',
      journal: { adapter: 'postgres', url: PG, fromEnv: false },
      source: 'jobs/nightly.json',
      sourceFindsJournal: false,
    },
    journal: `jobs/nightly.json --journal ${PG}`,
    run: `gbatch run jobs/nightly.json --journal ${PG}`,
  },
  {
    how: 'a gbatch serve batch',
    address: {
      named: 'batch_0123456789abcdef01234567',
      namedFindsJournal: false,
      name: 'batch_0123456789abcdef01234567',
      journal: { adapter: 'postgres', url: PG, fromEnv: true },
      source: 'serve/files/file-abc.jsonl',
      batch: 'batch_0123456789abcdef01234567',
    },
    journal: 'batch_0123456789abcdef01234567',
    run: null,
  },
];

describe('job address: how a command names the job', () => {
  it.each(ADDRESSES)('$how', ({ address, journal, run }) => {
    expect(journalArgOf(address)).toBe(journal);
    expect(runCommandOf(address)).toBe(run);
    // `gbatch run` takes one job or manifest: never two joined by a comma.
    if (run) expect(run).not.toMatch(/\.(csv|jsonl),/);
  });

  it('a job with no recorded source has no run command to paste', () => {
    expect(runCommandOf({ name: 'x', journal: { adapter: 'sqlite', file: 'state/x.db', isDefault: true } })).toBe(null);
  });

  it('plan reads the source the runs were started from, quoted; a serve batch or no source has none', () => {
    const journal = { adapter: 'sqlite', file: 'state/x.db', isDefault: true } as const;
    expect(planCommandOf({ source: 'jobs/night shift.json', journal })).toBe("gbatch plan 'jobs/night shift.json'");
    expect(planCommandOf({ source: 'in.jsonl', batch: 'batch_0123456789abcdef01234567', journal })).toBe(null);
    expect(planCommandOf({ name: 'x', journal })).toBe(null);
  });
});

const base = (address: JobAddress, some: Partial<StandingFacts> = {}): StandingFacts => ({
  counts: counts({ downloaded: 4 }),
  liveRunners: 0,
  cancelled: false,
  lastRun: ended(null, 0),
  orphans: { waiting: 0, resendable: [] },
  address,
  ...some,
});

/** Every standing: its kind, its label, its sentence, whether a run carries it on, and what needs a person. */
const STANDINGS: Array<{
  what: string;
  facts: Partial<StandingFacts>;
  kind: string;
  label: string;
  sentence: RegExp;
  resumes: boolean;
  needs: string[];
}> = [
  {
    what: 'finished',
    facts: {},
    kind: 'finished',
    label: 'finished',
    sentence: /^Finished: 4 downloaded\.$/,
    resumes: false,
    needs: [],
  },
  {
    what: 'finished with failed and rejected rows',
    facts: { counts: counts({ downloaded: 2, failed: 1, rejected: 1 }), lastRun: ended(null, 1) },
    kind: 'finished',
    label: 'finished, 2 failed or rejected',
    sentence: /^Finished: 2 downloaded, 2 failed, rejected or invalid\.$/,
    resumes: false,
    needs: ['failed', 'rejected'],
  },
  {
    what: 'failed rows the policy sends again on its own need no person',
    facts: {
      counts: counts({ downloaded: 2, failed: 2 }),
      lastRun: ended(null, 1),
      autoRetried: { failed: 2, rejected: 0 },
    },
    kind: 'finished',
    label: 'finished, 2 failed or rejected',
    sentence: /^Finished/,
    resumes: false,
    needs: [],
  },
  {
    what: 'stopped on the budget',
    facts: { counts: counts({ downloaded: 2, deferred: 3 }), lastRun: ended('budget', 3) },
    kind: 'budget',
    label: 'stopped on budget: 3 deferred',
    sentence: /^Stopped on the job's budget: 3 item\(s\) deferred\.$/,
    resumes: false,
    needs: ['deferred'],
  },
  {
    // Issue 32 item 3: a 402 at 57 % of the budget is no budget stop.
    what: "stopped by the gateway's 402",
    facts: { counts: counts({ downloaded: 2, deferred: 3 }), lastRun: ended('balance', 3) },
    kind: 'balance',
    label: "stopped by the gateway's 402: 3 deferred",
    sentence: /^Stopped by the gateway's balance \(402\): 3 item\(s\) deferred/,
    resumes: true,
    needs: ['deferred'],
  },
  {
    // Issue 32 item 3: a cancelled job is no budget stop, deferred rows or not.
    what: 'cancelled',
    facts: { counts: counts({ downloaded: 1, cancelled: 5 }), cancelled: true, lastRun: ended(null, 3) },
    kind: 'cancelled',
    label: 'cancelled',
    sentence: /^Cancelled \(gbatch cancel\): 5 item\(s\) never sent\.$/,
    resumes: false,
    needs: [],
  },
  {
    what: 'stopped by a signal',
    facts: { counts: counts({ downloaded: 1, pending: 2 }), lastRun: ended('interrupted', 75) },
    kind: 'signal',
    label: 'stopped by a signal',
    sentence: /^Stopped by a signal/,
    resumes: true,
    needs: [],
  },
  {
    what: 'stopped at the deadline',
    facts: { counts: counts({ downloaded: 1, submitted: 2 }), lastRun: ended('deadline', 75) },
    kind: 'deadline',
    label: 'stopped at the deadline',
    sentence: /^Stopped at the deadline; 2 item\(s\) open/,
    resumes: true,
    needs: [],
  },
  {
    what: 'crashed: ended unrecorded',
    facts: {
      counts: counts({ downloaded: 1, pending: 2 }),
      lastRun: { ended: false, exitCode: null, stopReason: null, message: null },
    },
    kind: 'crashed',
    label: 'crashed (the last run did not record its end)',
    sentence: /^The last run ended without recording how \(killed or crashed\)/,
    resumes: true,
    needs: [],
  },
  {
    what: 'crashed on an internal error',
    facts: { counts: counts({ pending: 2 }), lastRun: ended('internal-error', 70, 'Error: boom') },
    kind: 'crashed',
    label: 'crashed (internal error)',
    sentence: /^The last run crashed on an internal error \(Error: boom\)/,
    resumes: true,
    needs: [],
  },
  {
    // Issue 32 item 1: three live runners and no recorded ending are a running job, not a crash.
    what: 'running with three live runners, the last run unrecorded',
    facts: {
      counts: counts({ pending: 5, running: 3 }),
      liveRunners: 3,
      lastRun: { ended: false, exitCode: null, stopReason: null, message: null },
    },
    kind: 'running',
    label: 'running (3 runners)',
    sentence: /^Running with 3 runners; 8 item\(s\) open\.$/,
    resumes: false,
    needs: [],
  },
  {
    what: 'running with rows that need a person',
    facts: { counts: counts({ pending: 1, uncertain: 1 }), liveRunners: 1, uncertainIds: ['lost'] },
    kind: 'running',
    label: 'running (1 runner)',
    sentence: /^Running with 1 runner/,
    resumes: false,
    needs: ['uncertain'],
  },
  {
    what: 'not started',
    facts: { counts: counts({ pending: 3 }), lastRun: undefined },
    kind: 'not-started',
    label: 'not started',
    sentence: /^Not run yet: 3 item\(s\) waiting[.;]/,
    resumes: true,
    needs: [],
  },
  {
    what: 'stopped for another reason (the gateway unreachable)',
    facts: { counts: counts({ pending: 3 }), lastRun: ended('unreachable', 75, 'the gateway is unreachable') },
    kind: 'stopped',
    label: 'stopped (unreachable)',
    sentence: /^Stopped \(the gateway is unreachable\); 3 item\(s\) open/,
    resumes: true,
    needs: [],
  },
  {
    what: 'rows sent again by an operator after a run that ended',
    facts: { counts: counts({ downloaded: 1, pending: 1 }), lastRun: ended(null, 1) },
    kind: 'stopped',
    label: 'waiting for the next run',
    sentence: /^1 item\(s\) waiting for the next run/,
    resumes: true,
    needs: [],
  },
  {
    // Invalid rows wait for a person: no run sends them until the manifest is fixed.
    what: 'finished with invalid rows (--skip-invalid)',
    facts: { counts: counts({ downloaded: 3, invalid: 2 }), lastRun: ended(null, 1) },
    kind: 'finished',
    label: 'finished, 2 failed or rejected',
    sentence: /^Finished: 3 downloaded, 2 failed, rejected or invalid\.$/,
    resumes: false,
    needs: ['invalid'],
  },
  {
    what: 'finished with uncertain and orphaned rows',
    facts: {
      counts: counts({ downloaded: 3, uncertain: 2, failed: 1 }),
      lastRun: ended(null, 4),
      orphans: { waiting: 1, resendable: ['old row'] },
    },
    kind: 'finished',
    label: 'finished, 1 failed or rejected',
    sentence: /^Finished/,
    resumes: false,
    needs: ['uncertain', 'failed', 'orphaned'],
  },
];

describe('standingOf: every standing, for every way of addressing a job', () => {
  for (const { how, address, journal, run } of ADDRESSES) {
    describe(how, () => {
      it.each(STANDINGS)('$what', (row) => {
        const standing = standingOf(base(address, row.facts));
        expect(standing.kind).toBe(row.kind);
        expect(standing.label).toBe(row.label);
        expect(standing.sentence).toMatch(row.sentence);
        expect(standing.needs.map((n) => n.what)).toEqual(row.needs);
        // A stopped run is carried on by its run command, or in words when there is none to paste.
        expect(standing.resume).toBe(row.resumes ? run : null);
        expect(standing.frozen).toBe(null);
        if (row.resumes && run === null) expect(standing.sentence).toMatch(/gbatch serve that holds batch/);
        for (const need of standing.needs)
          for (const command of need.commands)
            if (need.what === 'invalid') expect(command).toBe(planCommandOf(address, '--skip-invalid'));
            else expect(command).toMatch(new RegExp(`^gbatch (resolve|retry) ${escape(journal)}( |$)`));
      });
    });
  }

  // A final serve batch refuses every command that would change it: whatever its standing, no need carries one.
  describe('a final gbatch serve batch', () => {
    const address = ADDRESSES.find((a) => a.address.batch !== undefined)!.address;
    const finalBatch = { batch: address.batch!, status: 'completed' };
    it.each(STANDINGS)('$what', (row) => {
      const standing = standingOf(base(address, { ...row.facts, finalBatch }));
      expect(standing.kind).toBe(row.kind);
      expect(standing.needs.map((n) => n.what)).toEqual(row.needs);
      expect(standing.needs.flatMap((n) => n.commands)).toEqual([]);
      expect(standing.resume).toBe(null);
      expect(standing.frozen).toBe(
        `the gbatch serve batch ${address.batch} is completed and never changes; to send its rows again, submit a new batch with them`,
      );
      expect(standing.sentence).toMatch(/; the gbatch serve batch batch_\w+ is completed and never changes\.$/);
      for (const need of standing.needs)
        expect(need.line).toMatch(/^\d+ [\w ()']+: the gbatch serve batch .* submit a new batch with them$/);
    });
  });

  it('deferred rows are a need in words (a higher budget comes first); invalid rows name the plan that lists them', () => {
    const address = ADDRESSES[0]!.address;
    const budget = standingOf(
      base(address, { counts: counts({ downloaded: 1, deferred: 2, invalid: 1 }), lastRun: ended('budget', 3) }),
    );
    expect(budget.needs).toEqual([
      {
        what: 'invalid',
        line: '1 manifest row(s) invalid (never sent): fix them in the manifest, then run again; the plan lists each',
        commands: ['gbatch plan jobs/nightly.json --skip-invalid'],
      },
      {
        what: 'deferred',
        line: "2 item(s) deferred by the job's budget: run again with a higher --budget (or --no-budget)",
        commands: [],
      },
    ]);
  });

  it("status --check's words for a run now: its exit code, or no run for a final serve batch", () => {
    const batch = ADDRESSES.find((a) => a.address.batch !== undefined)!.address;
    expect(runNowWords(standingOf(base(ADDRESSES[0]!.address)), 1)).toBe('`gbatch run` would exit 1 now');
    const final = standingOf(base(batch, { finalBatch: { batch: batch.batch!, status: 'completed' } }));
    expect(runNowWords(final, 0)).toBe(
      `no run: the gbatch serve batch ${batch.batch} is completed and never changes; to send its rows again, submit a new batch with them`,
    );
  });

  it('names one uncertain row by its id, several with --all-uncertain', () => {
    const address = ADDRESSES[0]!.address;
    const one = standingOf(base(address, { counts: counts({ uncertain: 1 }), uncertainIds: ["it's"] }));
    expect(one.needs[0]!.commands).toEqual([
      `gbatch resolve jobs/nightly.json 'it'\\''s' --resubmit`,
      `gbatch resolve jobs/nightly.json 'it'\\''s' --abandon`,
    ]);
    const two = standingOf(base(address, { counts: counts({ uncertain: 2 }), uncertainIds: ['a', 'b'] }));
    expect(two.needs[0]!.commands).toEqual([
      'gbatch resolve jobs/nightly.json --all-uncertain --resubmit',
      'gbatch resolve jobs/nightly.json --all-uncertain --abandon',
    ]);
  });

  it('orphaned rows a retry sends are named to it; failed rows get --failed, rejected --rejected', () => {
    const standing = standingOf(
      base(ADDRESSES[4]!.address, {
        counts: counts({ failed: 1, rejected: 2 }),
        orphans: { waiting: 2, resendable: ['o1', 'o 2'] },
      }),
    );
    expect(standing.needs.flatMap((n) => n.commands)).toEqual([
      "gbatch retry --state '/var/lib/gbatch/night 1.db' --failed",
      "gbatch retry --state '/var/lib/gbatch/night 1.db' --rejected",
      "gbatch retry --state '/var/lib/gbatch/night 1.db' o1 'o 2'",
    ]);
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
