// What the Files API takes from a client: purposes, expires_after and the list's query, as OpenAI's reference.
import { describe, expect, it } from 'vitest';
import { expiresAfterSeconds, fileListQuery, uploadPurpose, UPLOAD_PURPOSES } from '../../src/serve/file-params.js';
import { ApiFailure } from '../../src/serve/openai-error.js';

const refusal = (run: () => unknown): { status: number; param: string | null; message: string } => {
  try {
    run();
  } catch (err) {
    if (err instanceof ApiFailure)
      return { status: err.failure.status, param: err.failure.body.error.param, message: err.message };
  }
  throw new Error('not refused');
};

describe('uploadPurpose', () => {
  it("takes the reference's six purposes, names a missing one and refuses any other", () => {
    expect(UPLOAD_PURPOSES).toEqual(['assistants', 'batch', 'fine-tune', 'vision', 'user_data', 'evals']);
    for (const purpose of UPLOAD_PURPOSES) expect(uploadPurpose(purpose)).toBe(purpose);
    expect(refusal(() => uploadPurpose(undefined))).toEqual({
      status: 400,
      param: 'purpose',
      message: "Missing required parameter: 'purpose'",
    });
    expect(refusal(() => uploadPurpose('batch_output'))).toMatchObject({ status: 400, param: 'purpose' });
  });
});

describe('expiresAfterSeconds', () => {
  it('takes created_at and 3600 to 2592000 s; absent is no expiry', () => {
    expect(expiresAfterSeconds(undefined, undefined)).toBeUndefined();
    expect(expiresAfterSeconds('created_at', '3600')).toBe(3600);
    expect(expiresAfterSeconds('created_at', '2592000')).toBe(2_592_000);
    for (const seconds of ['3599', '2592001', '3600.5', '-3600', '1e4', '', undefined])
      expect(refusal(() => expiresAfterSeconds('created_at', seconds))).toMatchObject({
        param: 'expires_after.seconds',
      });
    for (const anchor of ['last_active_at', undefined])
      expect(refusal(() => expiresAfterSeconds(anchor, '3600'))).toMatchObject({ param: 'expires_after.anchor' });
  });
});

describe('fileListQuery', () => {
  it('defaults to 10,000 newest first, takes 1 to 10,000 and asc or desc, refuses the rest', () => {
    expect(fileListQuery({})).toEqual({ limit: 10_000, order: 'desc', after: undefined, purpose: undefined });
    expect(fileListQuery({ limit: '1', order: 'asc', after: 'file-a', purpose: 'vision' })).toEqual({
      limit: 1,
      order: 'asc',
      after: 'file-a',
      purpose: 'vision',
    });
    for (const limit of ['0', '10001', '2.5', 'ten'])
      expect(refusal(() => fileListQuery({ limit }))).toMatchObject({ status: 400, param: 'limit' });
    expect(refusal(() => fileListQuery({ order: 'newest' }))).toMatchObject({ status: 400, param: 'order' });
  });
});
