// The server-wide --budget of `gbatch serve` in the Prometheus text format: four gauges without labels, for
// the server's operator (they sum every client's batches).
import { Gauge, Registry } from 'prom-client';
import type { ServerBudget } from '../core/server-budget.js';
import { METRIC } from './metric-names.js';

export async function serverBudgetMetrics(budget: ServerBudget): Promise<string> {
  const registry = new Registry();
  const gauge = (name: string, help: string, value: number): void => {
    new Gauge({ name, help, registers: [registry] }).set(value);
  };
  gauge(
    METRIC.serverBudget,
    "The server's --budget: what the gateway may bill for all batches together, USD.",
    budget.budgetUsd,
  );
  gauge(METRIC.serverSpend, 'Money settled for all batches together, USD.', budget.spentUsd);
  gauge(METRIC.serverReserved, 'Money reserved for the requests of all batches in flight, USD.', budget.reservedUsd);
  gauge(METRIC.serverRemaining, "What is left of the server's --budget (never below 0), USD.", budget.remainingUsd);
  return registry.metrics();
}
