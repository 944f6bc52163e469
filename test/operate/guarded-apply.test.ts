// `resolve` writes the operator's decision compare-and-set on the state it read: a row a live run (or
// another operator) moved in between is refused in one line (exit 2), never as a bug (exit 70).
import { describe, expect, it } from 'vitest';
import { applyDecision } from '../../src/operate/guarded-apply.js';
import { UsageError } from '../../src/job/options.js';
import { entry, ingest, submitChange, useTempDir } from '../helpers/journal-fixtures.js';

const tmp = useTempDir();

describe('applyDecision', () => {
  it('applies the decision when the row is still as the operator saw it', async () => {
    const journal = tmp.open();
    ingest(journal, [entry('a')]);
    await applyDecision(journal.store, journal.get('a')!, { event: 'abandon', patch: { reservedUsd: 0 } });
    expect(journal.get('a')!.state).toBe('failed');
  });

  it('refuses, in one line naming the row and its state now, when the row changed between read and write', async () => {
    const journal = tmp.open();
    ingest(journal, [entry('a')]);
    const seen = journal.get('a')!;
    journal.apply([submitChange(seen)]); // a live run sent it meanwhile

    await expect(applyDecision(journal.store, seen, { event: 'abandon' })).rejects.toThrow(
      new UsageError("item 'a' changed state (now submitting) while resolving; look again"),
    );
    expect(journal.get('a')!.state).toBe('submitting');
  });
});
