// Placeholder until the PostgreSQL adapter lands.
import type { JournalStore } from '../store.js';
import type { OpenStoreOptions } from '../open-store.js';

export const PostgresJournalStore = {
  async open(_url: string, _options: OpenStoreOptions): Promise<JournalStore> {
    throw new Error('the PostgreSQL journal is not available yet');
  },
};
