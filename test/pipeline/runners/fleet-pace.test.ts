import { describe, expect, it } from 'vitest';
import { fleetPace } from '../../../src/pipeline/runners/fleet-pace.js';

describe('fleetPace', () => {
  it('is every beat up to ten runners, then one more beat apart for every ten', () => {
    expect([0, 1, 2, 10, 11, 20, 21, 30, 99, 100, 101].map(fleetPace)).toEqual([1, 1, 1, 1, 2, 2, 3, 3, 10, 10, 11]);
  });
});
