// The live view's forecast line: the P50/P90 the job started with (core/start-forecast.ts) and how many
// settled rows of the history it drew on, or that there was none and the table's estimate is used. Pure.
import type { Forecast } from '../../core/forecast.js';
import { joinFit, money } from './format.js';

export function forecastLine(forecast: Forecast, label: string, room: number): string {
  if (forecast.basisRows === 0)
    return joinFit([`${label}no history`, `the table's estimate ${money(forecast.p50Usd)} is used`], room);
  return joinFit(
    [`${label}P50 ${money(forecast.p50Usd)}`, `P90 ${money(forecast.p90Usd)} (${forecast.basisRows} rows like these)`],
    room,
  );
}
