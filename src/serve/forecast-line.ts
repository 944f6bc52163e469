// What a batch's log says of its forecast when its first run starts (core/start-forecast.ts): in serve's
// own words, requests rather than rows. The budget still reserves each request's bound. Pure.
import { formatUsd } from '../core/money.js';
import type { StartForecast } from '../core/start-forecast.js';

export function batchForecastLine(batchId: string, forecast: StartForecast): string {
  const f = forecast.total;
  if (f.basisRows === 0)
    return `forecast for ${batchId}: no history: the price table's estimate ${formatUsd(f.p50Usd)} is used`;
  const without =
    f.rowsWithoutHistory > 0 ? `; ${f.rowsWithoutHistory} request(s) with none at the table's estimate` : '';
  return (
    `forecast for ${batchId}: P50 ${formatUsd(f.p50Usd)}, P90 ${formatUsd(f.p90Usd)} ` +
    `from ${f.basisRows} settled request(s) like these${without}`
  );
}
