// A job's budget lowered under a live PostgreSQL runner (another run of the job, `run --ingest-only --budget X`,
// stores the new one): the runner reads the job's budget with its totals, stops sending past it, defers what no
// longer fits and ends by itself (exit 3). It does not keep reserving against the old budget, each intent refused by
// the journal: the refusals it made are counted (`budget_refusals` in `run --json`) and bounded. Proven from the
// simulator's ledger: the gateway's charges stay within the lowered budget and equal what the report books.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { videoBound } from '../../../src/core/bound.js';
import { formatUsd, roundUsd } from '../../../src/core/money.js';
import { BUILTIN_PRICING } from '../../../src/core/pricing.js';
import { assertBuilt, describeEnd, gbatch, startGbatch, type Gateway } from '../../helpers/crash/gbatch-child.js';
import { DEFAULTS, startHostileGateway } from '../../helpers/hostile-gateway.js';
import { videoRow, writeJsonl } from '../../helpers/manifests.js';
import { pgAvailable, usePgSchema } from '../../helpers/postgres.js';
import { endedWithin, readReport, runnerArgs } from '../../helpers/runners.js';

const ROWS = 30;
const CONCURRENCY = 2;
const row = (i: number) => videoRow(`v-${i}`, `lowered clip ${i}`);
/** What each row reserves, and what the gateway bills it (delivered at 1080p: the bound's resolution). */
const BOUND = videoBound('video-mini', row(0), BUILTIN_PRICING);
/** Room for every row until it is lowered. */
const FIRST_BUDGET = 100;
/** Accepted before the budget is lowered; the next submissions wait in the gateway until it is. */
const SENT_BEFORE = 3;
/**
 * Room for the rows sent before the budget is lowered (those accepted and those the gateway holds), two more and
 * half of one: seven rows in all, whichever way the runner's reservations race the change.
 */
const SENT_AFTER = 2;
const LOWERED_BUDGET = roundUsd((SENT_BEFORE + CONCURRENCY + SENT_AFTER + 0.5) * BOUND);
/** Far past the seconds the job takes: a runner still running then waits for ever. */
const DEADLINE_MS = 60_000;

const dir = mkdtempSync(join(tmpdir(), 'gbatch-multi-budget-lowered-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.skipIf(!pgAvailable())("a job's budget lowered under a live runner", () => {
  const db = usePgSchema('gbatch_multi_budget_lowered');

  test(
    'the runner holds to the lowered budget, defers the rest and ends by itself (exit 3), its refusals bounded',
    async () => {
      assertBuilt();
      let submissions = 0;
      let lower!: () => void;
      const lowered = new Promise<void>((resolve) => {
        lower = resolve;
      });
      let holding!: () => void;
      const held = new Promise<void>((resolve) => {
        holding = resolve;
      });
      const gw = await startHostileGateway({
        finalResolution: () => '1080p',
        routes: {
          videoSubmit: async (req, res, gateway) => {
            if (++submissions > SENT_BEFORE) {
              holding();
              await lowered;
            }
            return DEFAULTS.videoSubmit(req, res, gateway);
          },
        },
      });
      const gateway: Gateway = { baseUrl: gw.baseUrl, apiKey: gw.key };
      try {
        const manifest = writeJsonl(
          join(dir, 'lowered.jsonl'),
          Array.from({ length: ROWS }, (_, i) => row(i)),
        );
        const out = join(dir, 'out');
        const runner = startGbatch(
          runnerArgs(manifest, db.url(), out, [
            '--concurrency',
            String(CONCURRENCY),
            '--budget',
            String(FIRST_BUDGET),
            '--json',
          ]),
          gateway,
        );
        await held;
        const lowering = await gbatch(
          runnerArgs(manifest, db.url(), out, ['--ingest-only', '--budget', String(LOWERED_BUDGET)]),
          gateway,
        );
        expect(lowering.code, describeEnd('the run lowering the budget', lowering)).toBe(0);
        lower();

        const [ended] = await endedWithin([runner], DEADLINE_MS);
        expect(ended!.code, describeEnd('the runner', ended!)).toBe(3);
        expect(ended!.stderr).toContain(
          `the job's budget was changed by another run of the job: ${formatUsd(FIRST_BUDGET)} -> ${formatUsd(LOWERED_BUDGET)}`,
        );
        const summary = JSON.parse(ended!.stdout) as { budget_usd: number; budget_refusals: number };
        expect(summary.budget_usd).toBe(LOWERED_BUDGET);
        // At most the rows it had reserved against the old budget before it read the new one: those in its
        // lane's slots and those queued behind them.
        expect(summary.budget_refusals).toBeLessThanOrEqual(2 * CONCURRENCY);

        const sent = SENT_BEFORE + CONCURRENCY + SENT_AFTER;
        expect(gw.count('POST', '/v1/video')).toBe(sent);
        const report = await readReport('lowered', db.url(), gateway);
        expect(report.totals.by_state).toEqual({ downloaded: sent, deferred: ROWS - sent });
        expect(report.totals.budget_usd).toBe(LOWERED_BUDGET);
        expect(gw.billedUsd()).toBeLessThanOrEqual(LOWERED_BUDGET);
        expect(report.totals.actual_usd).toBeCloseTo(gw.billedUsd(), 8);
        expect(report.totals.reserved_usd).toBe(0);
      } finally {
        lower();
        await gw.close();
      }
    },
    DEADLINE_MS + 30_000,
  );
});
