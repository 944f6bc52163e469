// The rows a journal holds that a run may send, judged against the run's pricing table: which states
// count, which kinds, the model's and the resolution's prices, and the one line that names the first.
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/core/config-error.js';
import { BUILTIN_PRICING, type PricingTable } from '../../../src/core/pricing.js';
import type { ItemState } from '../../../src/core/states.js';
import type { ModelGroup } from '../../../src/journal/index.js';
import {
  refuseUnpricedHeldRows,
  unpricedHeldRows,
  unpricedRowError,
} from '../../../src/pipeline/lanes/held-row-prices.js';

function group(
  kind: string,
  model: string,
  resolution: string | null,
  id: string,
  state: ItemState,
  line: number,
  rows = 1,
): ModelGroup {
  return { kind, model, resolution, rows, first: { id, state, sourceFile: 'rows.jsonl', sourceLine: line } };
}

/** A journal that answers modelGroups from a fixed list, filtered by the states asked. */
function journalOf(groups: ModelGroup[]) {
  const asked: ItemState[][] = [];
  return {
    asked,
    async modelGroups(states: readonly ItemState[]) {
      asked.push([...states]);
      return groups.filter((g) => states.includes(g.first.state));
    },
  };
}

const CHAT_ONLY: PricingTable = {
  group_ratio: 1,
  video: {},
  chat: { 'chat-small': { input_per_1m: 0.15, output_per_1m: 0.6 } },
};

describe('unpricedHeldRows', () => {
  it('every pending and deferred row priced: nothing to say', async () => {
    const journal = journalOf([
      group('chat', 'chat-small', null, 'c1', 'pending', 1),
      group('video', 'video-mini', '480p', 'v1', 'deferred', 2),
    ]);
    expect(await unpricedHeldRows(journal, BUILTIN_PRICING, 'built-in', false)).toBeUndefined();
    expect(journal.asked).toEqual([['pending', 'deferred']]);
  });

  it('names the first unpriced row, its field and why, the pricing file and how many more', async () => {
    const journal = journalOf([
      group('chat', 'chat-small', null, 'c1', 'pending', 1, 4),
      group('video', 'video-mini', '480p', 'v1', 'deferred', 2, 3),
      group('chat', 'chat-large', null, 'c9', 'pending', 9, 2),
    ]);
    expect(await unpricedHeldRows(journal, CHAT_ONLY, 'prices.json', false)).toBe(
      "rows.jsonl:2 row 'v1' field 'model': no price for model 'video-mini' in the pricing table; add it with --pricing " +
        '(pricing: prices.json; the journal holds this row deferred, and 4 more unpriced row(s) a run may send)',
    );
  });

  it("a video row billed at a resolution its model's entry lacks: the resolution is named", async () => {
    const pricing: PricingTable = { ...BUILTIN_PRICING, video: { 'video-mini': { '720p': { ref: 1, noref: 2 } } } };
    const journal = journalOf([group('video', 'video-mini', '480p', 'v1', 'pending', 3)]);
    expect(await unpricedHeldRows(journal, pricing, 'p.json', false)).toBe(
      "rows.jsonl:3 row 'v1' field 'resolution': '480p' has no price for model 'video-mini' in the pricing table (priced: 720p); add it with --pricing " +
        '(pricing: p.json; the journal holds this row pending)',
    );
  });

  it('a model priced under the other kind only is not priced for this one', async () => {
    const pricing: PricingTable = {
      group_ratio: 1,
      video: { 'chat-small': { '720p': { ref: 1, noref: 2 } } },
      chat: {},
    };
    const journal = journalOf([group('chat', 'chat-small', null, 'c1', 'pending', 1)]);
    expect(await unpricedHeldRows(journal, pricing, 'p.json', false)).toMatch(
      /no price for model 'chat-small' in the pricing table \(it is priced as a video model\)/,
    );
  });

  it('uncertain and interrupted rows count only with --resubmit-uncertain-text, and then only text ones', async () => {
    const groups = [
      group('video', 'video-mini', '480p', 'v1', 'uncertain', 1),
      group('chat', 'chat-large', null, 'c2', 'submitting', 2),
    ];
    expect(await unpricedHeldRows(journalOf(groups), CHAT_ONLY, 'p.json', false)).toBeUndefined();
    const journal = journalOf(groups);
    expect(await unpricedHeldRows(journal, CHAT_ONLY, 'p.json', true)).toMatch(
      /^rows\.jsonl:2 row 'c2' field 'model': no price for model 'chat-large'.* the journal holds this row submitting\)$/,
    );
    expect(journal.asked).toEqual([
      ['pending', 'deferred'],
      ['uncertain', 'submitting'],
    ]);
  });

  it('refuseUnpricedHeldRows: the line as a ConfigError (exit 2)', async () => {
    const journal = journalOf([group('video', 'video-mini', '480p', 'v1', 'deferred', 2)]);
    await expect(refuseUnpricedHeldRows(journal, CHAT_ONLY, 'p.json', false)).rejects.toBeInstanceOf(ConfigError);
    await expect(refuseUnpricedHeldRows(journalOf([]), CHAT_ONLY, 'p.json', false)).resolves.toBeUndefined();
  });
});

describe('unpricedRowError (a row that became sendable during the run)', () => {
  const item = {
    id: 'x1',
    kind: 'chat' as const,
    model: 'chat-large',
    resolution: null,
    sourceFile: 'rows.jsonl',
    sourceLine: 4,
  };

  it('a ConfigError naming the row, its field and why; none for a priced row', () => {
    const err = unpricedRowError(item, CHAT_ONLY);
    expect(err).toBeInstanceOf(ConfigError);
    expect(err!.message).toBe(
      "rows.jsonl:4 row 'x1' field 'model': no price for model 'chat-large' in the pricing table; add it with --pricing " +
        '(it became sendable during this run, after the pricing check at its start: nothing more is sent)',
    );
    expect(unpricedRowError(item, BUILTIN_PRICING)).toBeUndefined();
    expect(
      unpricedRowError({ ...item, kind: 'video', model: 'video-mini', resolution: '480p' }, BUILTIN_PRICING),
    ).toBeUndefined();
  });
});
