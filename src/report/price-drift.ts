// Per model, the rows the pricing table priced below what the gateway charged: how many, what the table
// said, what the gateway charged, and their ratio. Fed the report's rows one at a time.
import { roundUsd } from '../core/money.js';
import type { ReportItem } from './model.js';

export interface PriceDriftGroup {
  model: string;
  /** Rows of the model the gateway charged more than the table says. */
  items: number;
  table_usd: number;
  gateway_charge_usd: number;
  /** gateway_charge_usd / table_usd (null when the table says $0). */
  ratio: number | null;
}

export class PriceDriftTally {
  private readonly byModel = new Map<string, { items: number; table: number; gateway: number }>();

  add(row: ReportItem): void {
    if (!row.mispriced || row.table_usd === null || row.gateway_charge_usd === null) return;
    const model = row.model ?? '';
    const group = this.byModel.get(model) ?? { items: 0, table: 0, gateway: 0 };
    group.items++;
    group.table += row.table_usd;
    group.gateway += row.gateway_charge_usd;
    this.byModel.set(model, group);
  }

  get items(): number {
    let n = 0;
    for (const group of this.byModel.values()) n += group.items;
    return n;
  }

  finish(): PriceDriftGroup[] {
    return [...this.byModel]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([model, g]) => ({
        model,
        items: g.items,
        table_usd: roundUsd(g.table),
        gateway_charge_usd: roundUsd(g.gateway),
        ratio: g.table > 0 ? Number((g.gateway / g.table).toFixed(6)) : null,
      }));
  }
}

/** One line for the table view, or none when the table priced every row the gateway reported at or above it. */
export function priceDriftLine(groups: readonly PriceDriftGroup[]): string | undefined {
  if (groups.length === 0) return undefined;
  const parts = groups.map(
    (g) =>
      `${g.model}: ${g.items} row(s), table $${g.table_usd.toFixed(6)}, gateway $${g.gateway_charge_usd.toFixed(6)}` +
      (g.ratio === null ? '' : ` (x${g.ratio.toFixed(3)})`),
  );
  return `Priced wrong by the pricing table (the gateway charged more; booked at its charge): ${parts.join('; ')}`;
}
