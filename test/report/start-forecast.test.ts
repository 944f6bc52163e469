import { describe, expect, it } from 'vitest';
import { reportForecast, forecastBasisWords, startForecastLine } from '../../src/report/start-forecast.js';
import type { StartForecast } from '../../src/core/start-forecast.js';

const forecast: StartForecast = {
  at: Date.UTC(2026, 10, 1),
  total: { p50Usd: 3, p90Usd: 4, basisRows: 5, rowsWithoutHistory: 1 },
  models: {
    'chat-large': { p50Usd: 1, p90Usd: 1.5, basisRows: 5, rowsWithoutHistory: 0 },
    'video-fast': { p50Usd: 2, p90Usd: 2.5, basisRows: 0, rowsWithoutHistory: 1 },
    'video-pro': { p50Usd: 2, p90Usd: 2.5, basisRows: 3, rowsWithoutHistory: 0 },
  },
};

describe("the report's forecast against the bill", () => {
  it('per model: P50, P90, basis, the bill, and where the bill fell', () => {
    const r = reportForecast(
      forecast,
      new Map([
        ['chat-large', 1.2],
        ['video-fast', 0.5],
      ]),
    )!;
    expect(r.made_at).toBe('2026-11-01T00:00:00.000Z');
    expect(r.by_model['chat-large']).toEqual({
      p50_usd: 1,
      p90_usd: 1.5,
      basis_rows: 5,
      rows_without_history: 0,
      actual_usd: 1.2,
      actual_vs_forecast: 'p50_to_p90',
    });
    expect(r.by_model['video-fast']!.actual_vs_forecast).toBe('below_p50');
    // A model nothing was billed for yet: 0 against its forecast.
    expect(r.by_model['video-pro']!.actual_usd).toBe(0);
    expect(reportForecast(forecast, new Map([['video-pro', 2.51]]))!.by_model['video-pro']!.actual_vs_forecast).toBe(
      'above_p90',
    );
  });

  it('none kept: null', () => {
    expect(reportForecast(undefined, new Map())).toBeNull();
  });

  it('says when there was no history', () => {
    expect(forecastBasisWords({ basis_rows: 0, rows_without_history: 2 })).toBe('no history: table estimate');
    expect(forecastBasisWords({ basis_rows: 4, rows_without_history: 1 })).toBe(
      '4 settled row(s) like these; 1 row(s) without history at the table estimate',
    );
    expect(startForecastLine(forecast)).toBe(
      'Forecast at the start (2026-11-01T00:00:00.000Z): P50 $3.000000, P90 $4.000000; 5 settled row(s) like these; 1 row(s) without history at the table estimate',
    );
  });
});
