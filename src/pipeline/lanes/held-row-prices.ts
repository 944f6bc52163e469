// Every row a run may send needs a price in the run's pricing table: its reservation, its bound and its
// price snapshot are made from it. Manifest rows are checked as they are read (validate-request.ts);
// this checks the rows the journal already holds (left pending or deferred by earlier runs, or from
// earlier manifests, which no ingest reads again), before a run changes anything. `plan` asks the same.
import { ConfigError } from '../../core/config-error.js';
import type { PricingTable } from '../../core/pricing.js';
import type { ItemKind, ItemState } from '../../core/states.js';
import type { Item, JournalRunReads, ModelGroup } from '../../journal/index.js';
import { formatRowError, type RowIssue } from '../../manifest/types.js';
import { heldRowPriceIssue } from '../../manifest/validate-request.js';

/** Rows every run sends: pending ones, and deferred ones (each run releases them). */
const SENDABLE: readonly ItemState[] = ['pending', 'deferred'];
/** Text rows --resubmit-uncertain-text sends again: uncertain, or left submitting (recovery makes them uncertain). */
const RESUBMITTABLE: readonly ItemState[] = ['uncertain', 'submitting'];

/**
 * One line naming the first held row the table cannot price (its file, line, id and field) and why,
 * with how many more there are; undefined when every row a run may send is priced.
 */
export async function unpricedHeldRows(
  journal: Pick<JournalRunReads, 'modelGroups'>,
  pricing: PricingTable,
  pricingSource: string,
  resubmitUncertainText: boolean,
): Promise<string | undefined> {
  const groups = await journal.modelGroups(SENDABLE);
  if (resubmitUncertainText)
    groups.push(...(await journal.modelGroups(RESUBMITTABLE)).filter((group) => group.kind !== 'video'));
  const gaps: Array<{ group: ModelGroup; issue: RowIssue }> = [];
  for (const group of groups) {
    const issue = heldRowPriceIssue(group.kind as ItemKind, group.model ?? '', group.resolution, pricing);
    if (issue) gaps.push({ group, issue });
  }
  if (gaps.length === 0) return undefined;
  const { group, issue } = gaps[0]!;
  const more = gaps.reduce((n, gap) => n + gap.group.rows, 0) - 1;
  const held = `the journal holds this row ${group.first.state}${more > 0 ? `, and ${more} more unpriced row(s) a run may send` : ''}`;
  return formatRowError({
    file: group.first.sourceFile,
    line: group.first.sourceLine,
    id: group.first.id,
    ...(issue.field !== undefined ? { field: issue.field } : {}),
    reason: `${issue.reason} (pricing: ${pricingSource}; ${held})`,
  });
}

/**
 * A run's start: a held row it may send that the table cannot price is a ConfigError (exit 2), before anything changes.
 */
export async function refuseUnpricedHeldRows(
  journal: Pick<JournalRunReads, 'modelGroups'>,
  pricing: PricingTable,
  pricingSource: string,
  resubmitUncertainText: boolean,
): Promise<void> {
  const line = await unpricedHeldRows(journal, pricing, pricingSource, resubmitUncertainText);
  if (line !== undefined) throw new ConfigError(line);
}

/**
 * During a run: a row that became sendable after the start's check (an operator's `retry` or `resolve`,
 * another runner's ingest) and that the table cannot price. A ConfigError for the run to stop on, not a
 * bug; undefined when the row is priced.
 */
export function unpricedRowError(
  item: Pick<Item, 'id' | 'kind' | 'model' | 'resolution' | 'sourceFile' | 'sourceLine'>,
  pricing: PricingTable,
): ConfigError | undefined {
  const issue = heldRowPriceIssue(item.kind, item.model, item.resolution, pricing);
  if (issue === undefined) return undefined;
  return new ConfigError(
    formatRowError({
      file: item.sourceFile,
      line: item.sourceLine,
      id: item.id,
      ...(issue.field !== undefined ? { field: issue.field } : {}),
      reason: `${issue.reason} (it became sendable during this run, after the pricing check at its start: nothing more is sent)`,
    }),
  );
}
