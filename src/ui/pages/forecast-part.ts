// The job page's forecast: the job's total as the cost history forecast it at the start (P50, P90 and the
// settled rows it drew on, or that there was none and the table's estimate is used), then the report's
// per-model forecast against the bill. Nothing for a job that keeps no forecast (it has not sent yet). Pure.
import { formatUsd } from '../../core/money.js';
import type { StartForecast } from '../../core/start-forecast.js';
import { esc } from '../../report/html/escape.js';
import { forecastSection, type HtmlReportInput } from '../../report/html/sections.js';
import { isoTime } from './layout.js';

export function forecastPart(forecast: StartForecast | undefined, input: HtmlReportInput): string {
  if (!forecast) return '';
  const t = forecast.total;
  const field = (name: string, usd: number): string =>
    `<span data-field="${name}" data-value="${usd}">${esc(formatUsd(usd))}</span>`;
  const basis =
    t.basisRows === 0
      ? `no history: no settled rows like these, so the price table's estimate ${field('forecast_estimate_usd', t.p50Usd)} is used`
      : `P50 ${field('forecast_p50_usd', t.p50Usd)}, P90 ${field('forecast_p90_usd', t.p90Usd)}, from ` +
        `<span data-field="forecast_basis_rows" data-value="${t.basisRows}">${t.basisRows}</span> settled row(s) like these` +
        (t.rowsWithoutHistory > 0 ? `; ${t.rowsWithoutHistory} row(s) without history at the table's estimate` : '');
  return `<section id="job-forecast"><h2>Forecast</h2><p>The job's total as forecast at its start (${esc(isoTime(forecast.at))}): ${basis}. The budget reserves each row's bound regardless.</p></section>
${forecastSection(input)}`;
}
