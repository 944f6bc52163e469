// What a finished campaign must show, proved from the simulator's ledger, the report and the files.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { Simulator } from '../../../src/sim/index.js';
import type { Campaign } from './campaign.js';
import { describeEnd, gbatch, type Gateway } from './gbatch-child.js';

export interface ReportItemJson {
  id: string;
  kind: string;
  state: string;
  task_id: string | null;
  actual_usd: number | null;
  output: string | null;
  sha256: string | null;
  bytes: number | null;
  attempts: number;
}
export interface ReportJson {
  job: string;
  totals: { items: number; by_state: Record<string, number>; actual_usd: number; reserved_usd: number };
  items: ReportItemJson[];
}

const SERVED_VIDEO = readFileSync(new URL('../../../assets/sim-video.mp4', import.meta.url));
export const SERVED_SHA256 = sha256(SERVED_VIDEO);

export function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

export async function readReport(statePath: string, gateway: Gateway): Promise<ReportJson> {
  const ended = await gbatch(['report', '--state', statePath, '--format', 'json'], gateway);
  if (ended.code !== 0) throw new Error(describeEnd('gbatch report', ended));
  return JSON.parse(ended.stdout) as ReportJson;
}

export interface ProofInput {
  campaign: Campaign;
  sim: Simulator;
  apiKey: string;
  report: ReportJson;
  outDir: string;
  /** Per text row id: calls the gateway charged whose answers were lost, resolved with --resubmit. */
  lostChargedCalls: ReadonlyMap<string, number>;
  /** Shown with any failure: how the campaign got here. */
  history: string;
  /** Every file here (journal, WAL left by kills, outputs) is searched for the API key. */
  workDir: string;
  /** Everything the commands printed, searched for the API key too. */
  printed?: string;
}

export function proveCampaign({
  campaign,
  sim,
  apiKey,
  report,
  outDir,
  lostChargedCalls,
  history,
  workDir,
  printed = '',
}: ProofInput): void {
  const why = `\n${history}`;
  const items = new Map(report.items.map((item) => [item.id, item]));
  const tasks = sim.ledger.tasks;
  const calls = sim.ledger.submissionsByPrompt();

  // No row lost: every manifest row is in the journal and done.
  expect(report.items.map((i) => i.id).sort(), why).toEqual(campaign.rows.map((r) => r.id).sort());
  expect(
    report.items.filter((i) => i.state !== 'downloaded').map((i) => `${i.id}: ${i.state}`),
    why,
  ).toEqual([]);

  for (const row of campaign.rows) {
    const item = items.get(row.id)!;
    if (row.kind === 'video') {
      // Exactly one task per video row, and it is the one the journal tracked and paid for.
      const rowTasks = tasks.filter((t) => t.prompt === row.prompt);
      expect(
        rowTasks.map((t) => t.id),
        `video row ${row.id}: tasks upstream${why}`,
      ).toEqual([item.task_id]);
      expect(item.actual_usd, `video row ${row.id}: actual vs the gateway's charge`).toBeCloseTo(
        rowTasks[0]!.chargedUsd,
        8,
      );
      expect(item.output, `video row ${row.id}: output path`).not.toBeNull();
      expect(existsSync(item.output!), `video row ${row.id}: ${item.output} on disk`).toBe(true);
      const bytes = readFileSync(item.output!);
      expect(sha256(bytes), `video row ${row.id}: file bytes are what the simulator served`).toBe(SERVED_SHA256);
      expect(item.sha256, `video row ${row.id}: journal sha256`).toBe(SERVED_SHA256);
      expect(item.bytes).toBe(bytes.length);
    } else {
      // One charged call, plus the ones whose answers a kill lost and the operator chose to resend.
      const expected = 1 + (lostChargedCalls.get(row.id) ?? 0);
      expect(calls[row.prompt] ?? 0, `${row.kind} row ${row.id}: charged calls upstream${why}`).toBe(expected);
    }
  }

  // One video file per video row, nothing else beside them (temporary names start with a dot).
  const videoFiles = readdirSync(outDir)
    .filter((f) => f.endsWith('.mp4') && !f.startsWith('.'))
    .sort();
  expect(videoFiles, `video files in ${outDir}`).toEqual(
    campaign.rows
      .filter((r) => r.kind === 'video')
      .map((r) => `${r.id}.mp4`)
      .sort(),
  );

  // results.jsonl: exactly one line per row (every row ends downloaded), each a 200 with its body.
  const textRows = campaign.rows.filter((r) => r.kind !== 'video');
  const lines = readFileSync(join(outDir, 'results.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l !== '');
  const parsed = lines.map(
    (l) => JSON.parse(l) as { custom_id: string; response: { status_code: number; body: unknown } },
  );
  expect(parsed.map((l) => l.custom_id).sort(), `results.jsonl lines${why}`).toEqual(
    campaign.rows.map((r) => r.id).sort(),
  );
  for (const line of parsed) {
    expect(line.response.status_code).toBe(200);
    expect(line.response.body).toBeTruthy();
  }

  // Money: the report's actual total is what the gateway charged, except lost text calls. Each lost
  // call was the same request as the one whose answer the journal kept, and the simulator's answer
  // (hence its usage and charge) is a pure function of the request: so each costs that row's actual.
  const lostUsd = textRows.reduce(
    (sum, row) => sum + (lostChargedCalls.get(row.id) ?? 0) * (items.get(row.id)!.actual_usd ?? 0),
    0,
  );
  const charged = sim.ledger.chargesTotal(sim.account(apiKey).name);
  expectMoneyReconciled(report.totals, lostChargedCalls, lostUsd, charged, why);

  expect(filesContaining(workDir, apiKey), 'files holding the API key').toEqual([]);
  expect(printed.includes(apiKey), 'the API key in command output').toBe(false);
}

function filesContaining(dir: string, secret: string): string[] {
  const needle = Buffer.from(secret);
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
    .filter((file) => readFileSync(file).includes(needle));
}

/**
 * The money of a campaign whose lost text calls (`lostChargedCalls` per row, costing `lostUsd` in all) the
 * operator knowingly sent again: the report's actual plus those calls is the ledger's `charged`; each lost call
 * was billed at a cost gbatch never saw, so it stays booked at its bound (nothing else is reserved), and gbatch
 * books no less than the gateway charged.
 */
export function expectMoneyReconciled(
  totals: { actual_usd: number; reserved_usd: number },
  lostChargedCalls: ReadonlyMap<string, number>,
  lostUsd: number,
  charged: number,
  why: string,
): void {
  const lostCalls = [...lostChargedCalls.values()].reduce((n, calls) => n + calls, 0);
  if (lostCalls === 0) expect(totals.reserved_usd, 'nothing left reserved').toBe(0);
  else expect(totals.reserved_usd, 'lost calls stay booked').toBeGreaterThanOrEqual(lostUsd - 1e-9);
  expect(totals.actual_usd + totals.reserved_usd, `booked vs ledger ${charged}${why}`).toBeGreaterThanOrEqual(
    charged - 1e-6,
  );
  expect(
    Math.abs(totals.actual_usd + lostUsd - charged),
    `report ${totals.actual_usd} + lost ${lostUsd} vs ledger ${charged}${why}`,
  ).toBeLessThanOrEqual(1e-6);
}
