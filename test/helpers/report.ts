// `gbatch report --format json` as a user reads it, typed by the report model it is written from.
import { expect } from 'vitest';
import type { ReportItem, ReportTotals } from '../../src/report/model.js';
import { runCli, stdoutJson } from './cli.js';

export interface ReportJson {
  job: string;
  totals: ReportTotals;
  items: ReportItem[];
}

export async function reportJson(statePath: string, cwd?: string): Promise<ReportJson> {
  const result = await runCli(['report', '--state', statePath, '--format', 'json'], cwd === undefined ? {} : { cwd });
  expect(result.code, result.stderr).toBe(0);
  return stdoutJson<ReportJson>(result);
}

export function reportItemOf(report: ReportJson, id: string): ReportItem {
  const item = report.items.find((i) => i.id === id);
  if (!item) throw new Error(`the report has no item '${id}'`);
  return item;
}
