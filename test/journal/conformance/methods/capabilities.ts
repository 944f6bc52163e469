// What a store says of itself: its adapter, where it is, what it can do, and its clock.
import { beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../../src/core/clock.js';
import type { JournalStore } from '../../../../src/journal/index.js';
import type { Harness } from '../harness.js';

export function capabilitiesConformance(label: string, harness: Harness): void {
  describe(`adapter, location, capabilities and now: ${label}`, () => {
    let store: JournalStore;
    let clock: ManualClock;

    beforeEach(async () => {
      clock = new ManualClock(1_700_000_000_000);
      store = await harness.open({ clock });
    });

    it('names its adapter and location (no password); shares runners and takes notes after loss only as a database; now() is its clock', async () => {
      expect(store.adapter).toBe(harness.adapter);
      expect(store.location).not.toBe('');
      expect(store.location).not.toMatch(/:[^/@:]+@/);
      const database = harness.adapter === 'postgres';
      expect(store.capabilities).toEqual({ sharedRunners: database, notesAfterLoss: database });
      expect(store.now()).toBe(clock.now());
      clock.tick(250);
      expect(store.now()).toBe(1_700_000_000_250);
    });
  });
}
