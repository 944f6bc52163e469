import { describe, expect, it } from 'vitest';
import { type ForecastRow, type SettledCost } from '../../src/core/forecast.js';
import { rowLikeness } from '../../src/core/row-likeness.js';
import {
  accountHistory,
  keepingStartForecast,
  START_FORECAST_KEY,
  startForecast,
  startForecastOf,
} from '../../src/core/start-forecast.js';

const row = (id: string, model: string, estimateUsd: number): ForecastRow => ({
  ...rowLikeness('video', { model, resolution: '720p', duration: 5 }),
  id,
  estimateUsd,
  reserveUsd: estimateUsd * 3,
});
const settled = (model: string, actualUsd: number, account = 'acct-a'): SettledCost & { account: string } => ({
  ...rowLikeness('video', { model, resolution: '720p', duration: 5 }),
  estimateUsd: 1,
  boundUsd: 3,
  actualUsd,
  account,
});

describe('the forecast a job starts with', () => {
  it('per model and in total: each model from its own history; a model without history at its table estimate', () => {
    const rows = [row('a', 'video-fast', 1), row('b', 'video-fast', 1), row('c', 'video-pro', 2)];
    const f = startForecast(rows, [settled('video-fast', 2), settled('video-fast', 2)], 1000);
    expect(f.at).toBe(1000);
    expect(f.models['video-fast']).toEqual({ p50Usd: 4, p90Usd: 4, basisRows: 2, rowsWithoutHistory: 0 });
    expect(f.models['video-pro']).toEqual({ p50Usd: 2, p90Usd: 2, basisRows: 0, rowsWithoutHistory: 1 });
    expect(f.total).toEqual({ p50Usd: 6, p90Usd: 6, basisRows: 2, rowsWithoutHistory: 1 });
  });

  it('never looks at what a row reserves: the bound stays the budget’s business', () => {
    const cheap = [row('a', 'video-fast', 1)];
    const dear = [{ ...row('a', 'video-fast', 1), reserveUsd: 99 }];
    const history = [settled('video-fast', 1.5)];
    expect(startForecast(dear, history, 0)).toEqual(startForecast(cheap, history, 0));
  });

  it('the account’s own history when it has one, else every account’s', () => {
    const mixed = [settled('m', 1, 'acct-a'), settled('m', 2, 'acct-b')];
    expect(accountHistory(mixed, 'acct-b')).toEqual([mixed[1]]);
    expect(accountHistory(mixed, 'acct-c')).toEqual(mixed);
    expect(accountHistory(mixed, undefined)).toEqual(mixed);
  });

  it('a save of the record keeps the forecast it holds unless the options saved carry one', () => {
    const kept = startForecast([row('a', 'video-fast', 1)], [], 5);
    const other = startForecast([row('a', 'video-fast', 2)], [], 6);
    expect(keepingStartForecast({ budget: 3 }, { budget: 1, [START_FORECAST_KEY]: kept })).toEqual({
      budget: 3,
      [START_FORECAST_KEY]: kept,
    });
    expect(keepingStartForecast({ [START_FORECAST_KEY]: other }, { [START_FORECAST_KEY]: kept })).toEqual({
      [START_FORECAST_KEY]: other,
    });
    expect(keepingStartForecast({ budget: 3 }, { budget: 1 })).toEqual({ budget: 3 });
    expect(keepingStartForecast({ budget: 3 }, undefined)).toEqual({ budget: 3 });
  });

  it('kept in the job record’s options and read back; anything else there reads as none', () => {
    const f = startForecast([row('a', 'video-fast', 1)], [], 5);
    const options = JSON.parse(JSON.stringify({ other: 1, [START_FORECAST_KEY]: f })) as Record<string, unknown>;
    expect(startForecastOf(options)).toEqual(f);
    expect(startForecastOf({})).toBeUndefined();
    expect(startForecastOf(undefined)).toBeUndefined();
    expect(startForecastOf({ [START_FORECAST_KEY]: { at: 'x' } })).toBeUndefined();
  });
});
