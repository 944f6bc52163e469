// OpenAI's limit on a batch's input file (200 MB), held when the batch is created: nothing is made of a larger one.
import { describe, expect, it } from 'vitest';
import type { CatalogFile } from '../../src/journal/index.js';
import { BatchesApi, MAX_INPUT_BYTES } from '../../src/serve/batches-api.js';
import type { ServeContext } from '../../src/serve/context.js';
import type { BatchScheduler } from '../../src/serve/scheduler.js';

function api(bytes: number): { batches: BatchesApi; added: unknown[] } {
  const added: unknown[] = [];
  const file: CatalogFile = {
    id: 'file-in',
    owner: 'o',
    createdAt: 1,
    record: { purpose: 'batch', bytes, path: '/x' },
  };
  const ctx = {
    env: {},
    now: () => 1_700_000_000_000,
    catalog: { file: async () => file, addBatch: async (b: unknown) => void added.push(b) },
  } as unknown as ServeContext;
  const scheduler = { start: () => undefined } as unknown as BatchScheduler;
  return { batches: new BatchesApi(ctx, scheduler), added };
}

const create = { input_file_id: 'file-in', endpoint: '/v1/chat/completions', completion_window: '24h' };

describe('a batch input over 200 MB', () => {
  it('is refused with 400 on input_file_id, and no batch is made; 200 MB exactly is taken', async () => {
    expect(MAX_INPUT_BYTES).toBe(209_715_200);
    const over = api(MAX_INPUT_BYTES + 1);
    await expect(over.batches.create('o', create)).rejects.toMatchObject({
      failure: { status: 400, body: { error: { param: 'input_file_id', type: 'invalid_request_error' } } },
    });
    expect(over.added).toEqual([]);
    const exact = api(MAX_INPUT_BYTES);
    await exact.batches.create('o', create);
    expect(exact.added).toHaveLength(1);
  });
});
