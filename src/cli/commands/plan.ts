import { roundUsd } from '../../core/money.js';
import { printable } from '../../core/printable.js';
import { formatRowError } from '../../manifest/types.js';
import { scanManifests, estimateResolution } from '../../pipeline/scan-manifests.js';
import { renderTable, usd } from '../../report/table.js';
import { jobFromArgs } from '../job.js';

const SHOWN_ROWS = 50;
const SHOWN_ERRORS = 200;

interface Group { model: string; resolution: string | null; rows: number; usd: number }

export async function run(argv: string[]): Promise<number> {
  const job = jobFromArgs('plan', argv, new Date());
  if (!job) return 0;
  const groups = new Map<string, Group>();
  const rows: Array<[string, string, string, string | null, string]> = [];
  const errors: string[] = [];
  let errorCount = 0;
  let total = 0;
  let summary;
  try {
    summary = await scanManifests(job.manifests, job.pricing, {
      valid: ({ row, estimate }) => {
        total += estimate.usd;
        const resolution = estimateResolution(estimate);
        const key = `${row.model}\u0000${resolution ?? ''}`;
        const group = groups.get(key) ?? { model: row.model, resolution, rows: 0, usd: 0 };
        group.rows++;
        group.usd += estimate.usd;
        groups.set(key, group);
        if (rows.length < SHOWN_ROWS) rows.push([row.id, row.kind, row.model, resolution, usd(estimate.usd)]);
      },
      invalid: (entry) => {
        for (const e of entry.errors) {
          errorCount++;
          if (errors.length < SHOWN_ERRORS) errors.push(formatRowError(e));
        }
      },
    });
  } catch (err) {
    process.stderr.write(`gbatch plan: ${printable((err as Error).message)}\n`);
    return 2;
  }
  total = roundUsd(total);
  const budget = job.flags.budget;
  const fits = budget === undefined ? null : total <= budget;
  const groupList = [...groups.values()].sort((a, b) => a.model.localeCompare(b.model) || String(a.resolution).localeCompare(String(b.resolution)));
  if (job.flags.json) {
    process.stdout.write(`${JSON.stringify({
      job: job.name, manifests: job.manifests, pricing: job.pricingSource,
      rows: summary.rows, valid: summary.valid, invalid: summary.invalid, errors: errors, error_count: errorCount,
      estimated_usd: total, budget_usd: budget ?? null, fits_budget: fits,
      by_model: groupList.map((g) => ({ model: g.model, resolution: g.resolution, rows: g.rows, estimated_usd: roundUsd(g.usd) })),
    })}\n`);
  } else {
    for (const line of errors) process.stderr.write(`${line}\n`);
    if (errorCount > errors.length) process.stderr.write(`... ${errorCount - errors.length} more error(s)\n`);
    const out: string[] = [];
    out.push(`Plan for ${printable(job.name)}: ${summary.rows} row(s) in ${printable(job.manifests.join(', '))}; ${summary.valid} valid, ${summary.invalid} invalid`);
    out.push(`Pricing: ${printable(job.pricingSource)}`);
    if (rows.length > 0) {
      out.push('', renderTable(['id', 'kind', 'model', 'resolution', 'estimate'], rows, new Set([4])));
      if (summary.valid > rows.length) out.push(`(${summary.valid - rows.length} more rows)`);
    }
    if (groupList.length > 0) {
      out.push('', renderTable(['model', 'resolution', 'rows', 'estimate'],
        groupList.map((g) => [g.model, g.resolution, g.rows, usd(roundUsd(g.usd))]), new Set([2, 3])));
    }
    out.push('', `Estimated total: ${usd(total)} (an upper bound for chat; the gateway's estimator for video)`);
    if (budget !== undefined) {
      out.push(fits ? `Fits the budget of ${usd(budget, 2)}.` : `Exceeds the budget of ${usd(budget, 2)}: a run sends what fits and defers the rest (exit 3).`);
    }
    if (summary.invalid > 0) out.push(`${summary.invalid} invalid row(s): \`run\` refuses this manifest unless --skip-invalid.`);
    process.stdout.write(`${out.join('\n')}\n`);
  }
  return summary.invalid > 0 ? 2 : 0;
}
