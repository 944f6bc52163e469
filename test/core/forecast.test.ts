import { describe, expect, it } from 'vitest';
import {
  CostHistory,
  drawJob,
  forecastOf,
  percentile,
  type ForecastRow,
  type SettledCost,
} from '../../src/core/forecast.js';
import { rowLikeness, sizeBucket } from '../../src/core/row-likeness.js';
import { seededRandom } from '../../src/core/seeded-random.js';

const video = (id: string, estimateUsd: number, reserveUsd: number, resolution = '720p'): ForecastRow => ({
  ...rowLikeness('video', { model: 'video-fast', resolution, duration: 5 }),
  id,
  estimateUsd,
  reserveUsd,
});
const settled = (actualUsd: number, estimateUsd = 1, resolution = '720p', duration = 5): SettledCost => ({
  ...rowLikeness('video', { model: 'video-fast', resolution, duration }),
  estimateUsd,
  boundUsd: 3,
  actualUsd,
});

describe('forecast of a job total', () => {
  it('without history every row costs its table estimate and says so (basis 0)', () => {
    const rows = [video('a', 1, 3), video('b', 2, 5)];
    const forecast = forecastOf(drawJob(rows, new CostHistory([]), { committedUsd: 0.5 }));
    expect(forecast).toEqual({ p50Usd: 3.5, p90Usd: 3.5, basisRows: 0, rowsWithoutHistory: 2 });
  });

  it('a history billing twice the estimate doubles the range', () => {
    const history = new CostHistory([settled(2), settled(2), settled(2)]);
    const forecast = forecastOf(drawJob([video('a', 1, 3), video('b', 1, 3)], history, { committedUsd: 0 }));
    expect(forecast).toEqual({ p50Usd: 4, p90Usd: 4, basisRows: 3, rowsWithoutHistory: 0 });
  });

  it('a mixed history gives a range: P50 below P90, both inside the extremes', () => {
    // Half the rows were billed at the estimate, half at 3x (a dearer final resolution).
    const history = new CostHistory([
      ...Array(10)
        .fill(0)
        .map(() => settled(1)),
      ...Array(10)
        .fill(0)
        .map(() => settled(3)),
    ]);
    const rows = Array.from({ length: 20 }, (_, i) => video(`r${i}`, 1, 3));
    const forecast = forecastOf(drawJob(rows, history, { committedUsd: 0, seed: 7 }));
    expect(forecast.p50Usd).toBeGreaterThanOrEqual(36);
    expect(forecast.p50Usd).toBeLessThanOrEqual(44);
    expect(forecast.p90Usd).toBeGreaterThan(forecast.p50Usd);
    expect(forecast.p90Usd).toBeLessThan(60);
    expect(forecast.basisRows).toBe(20);
    // The same seed draws the same trials.
    expect(forecastOf(drawJob(rows, history, { committedUsd: 0, seed: 7 }))).toEqual(forecast);
  });

  it('falls back to rows of the same model and resolution when none had the same duration', () => {
    const history = new CostHistory([settled(1.5, 1, '720p', 10), settled(9, 1, '1080p', 5)]);
    const forecast = forecastOf(drawJob([video('a', 2, 3)], history, { committedUsd: 0 }));
    expect(forecast).toEqual({ p50Usd: 3, p90Usd: 3, basisRows: 1, rowsWithoutHistory: 0 });
  });

  it('counts a history row once when rows drew on it by both likenesses', () => {
    const history = new CostHistory([settled(1.5, 1, '720p', 5), settled(1.5, 1, '720p', 10)]);
    const rows = [video('a', 1, 3), { ...video('b', 1, 3), durationS: 8 }];
    expect(forecastOf(drawJob(rows, history, { committedUsd: 0 })).basisRows).toBe(2);
  });

  it('text rows are alike by prompt size within a factor of two', () => {
    expect(sizeBucket(1)).toBe(0);
    expect(sizeBucket(1000)).toBe(sizeBucket(600));
    expect(sizeBucket(1000)).not.toBe(sizeBucket(2000));
    const a = rowLikeness('chat', { model: 'chat-small', messages: [{ role: 'user', content: 'x'.repeat(600) }] });
    expect(a).toEqual({ kind: 'chat', model: 'chat-small', resolution: null, durationS: null, sizeBucket: 10 });
  });

  it('percentile is the nearest rank; the seeded generator repeats', () => {
    expect(percentile(Float64Array.from([5, 1, 4, 2, 3]), 0.5)).toBe(3);
    expect(percentile(Float64Array.from([5, 1, 4, 2, 3]), 0.9)).toBe(5);
    const a = seededRandom(1);
    const b = seededRandom(1);
    const drawn = [a(), a(), a()];
    expect([b(), b(), b()]).toEqual(drawn);
    expect(drawn.every((x) => x >= 0 && x < 1)).toBe(true);
  });
});
