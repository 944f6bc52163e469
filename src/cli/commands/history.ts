// `gbatch history`: the cost history a journal keeps (what settled rows were billed against their estimate
// and bound), per model; `gbatch history import <journal>` merges another journal's into it.
import { EXIT_CODES } from '../../core/command-exit-codes.js';
import { roundUsd } from '../../core/money.js';
import { printable } from '../../core/printable.js';
import type { SettledCostRecord } from '../../journal/index.js';
import { printableLocation } from '../../journal/database-url.js';
import { existsSync } from 'node:fs';
import { isDatabaseUrl, openHistory, openQueries } from '../../journal/open-store.js';
import { parseOptions, UsageError, type OptionTable } from '../../job/options.js';
import { renderTable, usd } from '../../report/table.js';
import { journalUrl } from '../command-journal.js';
import { helpText } from '../help-text.js';

export const OPTIONS = {
  state: { type: 'string', help: 'the journal: an SQLite file' },
  journal: { type: 'string', help: 'the journal on a database: a postgres:// URL (default: GBATCH_JOURNAL_URL)' },
  json: { type: 'boolean', help: 'print one JSON object' },
  help: { type: 'boolean', short: 'h', help: 'show this help' },
} as const satisfies OptionTable;

export interface ModelHistory {
  model: string;
  kind: string;
  resolution: string | null;
  rows: number;
  estimatedUsd: number;
  billedUsd: number;
  boundUsd: number;
}

export async function run(argv: string[]): Promise<number> {
  const { options, positionals } = parseOptions(OPTIONS, argv);
  if (options.help) {
    process.stdout.write(
      `${helpText('history', '[import <journal>] (--state F | --journal URL) [--json]', OPTIONS, EXIT_CODES.history)}\n` +
        '\nWhat each settled row was billed against its estimate and its bound, per model: what `plan` forecasts from.\n' +
        "`import <journal>` adds another journal's history (an SQLite file or a postgres:// URL); importing twice adds nothing.\n",
    );
    return 0;
  }
  const target = journalLocation(options);
  const [action, ...rest] = positionals;
  if (action === undefined) return show(target, options.json === true);
  if (action !== 'import' || rest.length !== 1)
    throw new UsageError(
      `Expected \`gbatch history\` or \`gbatch history import <journal>\`, got \`${printable(positionals.join(' '))}\``,
    );
  const from = await openQueries(existing(rest[0]!), { job: '' });
  let rows: SettledCostRecord[];
  try {
    rows = await from.settledCosts();
  } finally {
    await from.close();
  }
  const into = await openHistory(target);
  let added: number;
  try {
    added = await into.recordSettled(rows);
  } finally {
    await into.close();
  }
  const summary = { from: printableLocation(rest[0]!), into: printableLocation(target), read: rows.length, added };
  process.stdout.write(
    options.json
      ? `${JSON.stringify(summary)}\n`
      : `${printable(summary.into)}: ${added} settled row(s) added from ${printable(summary.from)} (${rows.length} read; ${rows.length - added} already there)\n`,
  );
  return 0;
}

async function show(location: string, json: boolean): Promise<number> {
  const journal = await openQueries(existing(location), { job: '' });
  let rows: SettledCostRecord[];
  try {
    rows = await journal.settledCosts();
  } finally {
    await journal.close();
  }
  const models = byModel(rows);
  if (json) {
    process.stdout.write(
      `${JSON.stringify({
        journal: printableLocation(location),
        rows: rows.length,
        models: models.map((m) => ({
          model: m.model,
          kind: m.kind,
          resolution: m.resolution,
          rows: m.rows,
          estimated_usd: m.estimatedUsd,
          billed_usd: m.billedUsd,
          bound_usd: m.boundUsd,
        })),
      })}\n`,
    );
    return 0;
  }
  if (rows.length === 0) {
    process.stdout.write(`${printable(printableLocation(location))}: no settled rows in the cost history yet\n`);
    return 0;
  }
  process.stdout.write(
    `${renderTable(
      ['model', 'kind', 'resolution asked', 'rows', 'estimated', 'billed', 'billed/estimated', 'could bill up to'],
      models.map((m) => [
        printable(m.model),
        m.kind,
        m.resolution ?? '-',
        m.rows,
        usd(m.estimatedUsd),
        usd(m.billedUsd),
        m.estimatedUsd > 0 ? (m.billedUsd / m.estimatedUsd).toFixed(2) : '-',
        usd(m.boundUsd),
      ]),
      new Set([3, 4, 5, 6, 7]),
    )}\n`,
  );
  return 0;
}

export function byModel(rows: readonly SettledCostRecord[]): ModelHistory[] {
  const groups = new Map<string, ModelHistory>();
  for (const r of rows) {
    const key = `${r.model}\u0000${r.kind}\u0000${r.resolution ?? ''}`;
    const group = groups.get(key) ?? {
      model: r.model,
      kind: r.kind,
      resolution: r.resolution,
      rows: 0,
      estimatedUsd: 0,
      billedUsd: 0,
      boundUsd: 0,
    };
    group.rows++;
    group.estimatedUsd = roundUsd(group.estimatedUsd + r.estimateUsd);
    group.billedUsd = roundUsd(group.billedUsd + r.actualUsd);
    group.boundUsd = roundUsd(group.boundUsd + r.boundUsd);
    groups.set(key, group);
  }
  return [...groups.values()].sort(
    (a, b) => a.model.localeCompare(b.model) || String(a.resolution).localeCompare(String(b.resolution)),
  );
}

/** A journal to read: a file that is not there is a usage error, not an empty history. */
function existing(location: string): string {
  if (!isDatabaseUrl(location) && !existsSync(location))
    throw new UsageError(`${printable(location)}: no journal there (an SQLite file, or a postgres:// URL)`);
  return location;
}

function journalLocation(options: { state?: string; journal?: string }): string {
  const server = journalUrl({ journal: options.journal });
  if (server) return server.url;
  const file = options.state ?? options.journal;
  if (file === undefined)
    throw new UsageError(
      'name the journal: --state F (an SQLite file) or --journal postgres://... (or GBATCH_JOURNAL_URL)',
    );
  return file;
}
