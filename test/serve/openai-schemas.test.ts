// The check of serve's answers against OpenAI's published schemas: the loader and the check itself can fail.
import { describe, expect, it } from 'vitest';
import { contractViolations, schemaOfRoute } from '../helpers/openai-contract.js';
import { FIXTURE, schemaChecks, toJsonSchema } from '../helpers/openai-schemas.js';

const check = schemaChecks();
const batch = {
  id: 'batch_1',
  object: 'batch',
  endpoint: '/v1/chat/completions',
  input_file_id: 'file-1',
  completion_window: '24h',
  status: 'in_progress',
  created_at: 1_700_000_000,
  request_counts: { total: 2, completed: 1, failed: 0 },
  metadata: null,
};

describe('the schema fixture', () => {
  it('names the repository, path and commit of every schema it holds', () => {
    const named = FIXTURE.sources.flatMap((s) => s.schemas);
    expect(named.sort()).toEqual(Object.keys(FIXTURE.schemas).sort());
    for (const source of FIXTURE.sources) {
      expect(source.repository).toBe('https://github.com/openai/openai-openapi');
      expect(source.commit).toMatch(/^[0-9a-f]{40}$/);
    }
  });
});

describe('toJsonSchema', () => {
  it('turns an OpenAPI 3.0 nullable into a null type, and component refs into definitions', () => {
    expect(
      toJsonSchema({ type: 'object', nullable: true, properties: { a: { $ref: '#/components/schemas/A' } } }),
    ).toEqual({ type: ['object', 'null'], properties: { a: { $ref: '#/definitions/A' } } });
    expect(toJsonSchema({ type: 'string', enum: ['x'], nullable: true })).toEqual({
      type: ['string', 'null'],
      enum: ['x', null],
    });
    expect(toJsonSchema({ $ref: '#/components/schemas/A', nullable: true })).toEqual({
      anyOf: [{ $ref: '#/definitions/A' }, { type: 'null' }],
    });
    expect(toJsonSchema({ type: 'string', nullable: false })).toEqual({ type: 'string' });
  });

  it('lets a 3.0 nullable field be null and nothing else', () => {
    const line = check('BatchRequestOutput');
    expect(line({ id: 'r', custom_id: 'a', response: null, error: { code: 'c', message: 'm' } })).toEqual([]);
    expect(line({ id: 'r', custom_id: 'a', response: 'ok', error: null })).toEqual([
      'BatchRequestOutput.response: should be object,null (schema BatchRequestOutput/properties/response/type)',
    ]);
  });
});

describe('the check refuses a body that does not follow the schema', () => {
  it('accepts a well-formed batch and list', () => {
    expect(check('Batch')(batch)).toEqual([]);
    expect(
      check('ListBatchesResponse')({
        object: 'list',
        data: [batch],
        first_id: 'batch_1',
        last_id: 'batch_1',
        has_more: false,
      }),
    ).toEqual([]);
  });

  it('names the route and the schema path of each wrong field', () => {
    const wrong = { ...batch, status: 'running', created_at: 'yesterday', output_file_id: null };
    expect(contractViolations('GET', '/v1/batches/batch_1', 200, JSON.stringify(wrong), new Set()).sort()).toEqual([
      'GET /v1/batches/batch_1 (200): Batch.created_at: should be integer (schema Batch/properties/created_at/type)',
      'GET /v1/batches/batch_1 (200): Batch.output_file_id: should be string (schema Batch/properties/output_file_id/type)',
      'GET /v1/batches/batch_1 (200): Batch.status: should be equal to one of the allowed values (schema Batch/properties/status/enum)',
    ]);
  });

  it('refuses an empty file list whose first_id is null, and an error without its envelope', () => {
    const empty = JSON.stringify({ object: 'list', data: [], first_id: null, last_id: null, has_more: false });
    expect(contractViolations('GET', '/v1/files', 200, empty, new Set())).toEqual([
      'GET /v1/files (200): ListFilesResponse.first_id: should be string (schema ListFilesResponse/properties/first_id/type)',
      'GET /v1/files (200): ListFilesResponse.last_id: should be string (schema ListFilesResponse/properties/last_id/type)',
    ]);
    expect(contractViolations('POST', '/v1/batches', 400, JSON.stringify({ message: 'bad' }), new Set())).toEqual([
      "POST /v1/batches (400): ErrorResponse: should have required property 'error' (schema ErrorResponse/required)",
    ]);
  });

  it('checks the lines of a batch result file, and only those', () => {
    const lines = `${JSON.stringify({ id: 'r1', custom_id: 'a', response: { status_code: '200' }, error: null })}\n`;
    expect(contractViolations('GET', '/v1/files/file-out/content', 200, lines, new Set(['file-out']))).toEqual([
      'GET /v1/files/file-out/content (200): line 1: BatchRequestOutput.response.status_code: should be integer (schema BatchRequestOutput/properties/response/properties/status_code/type)',
    ]);
    expect(contractViolations('GET', '/v1/files/file-in/content', 200, lines, new Set(['file-out']))).toEqual([]);
  });

  it('maps each route to its schema', () => {
    expect(schemaOfRoute('POST', '/v1/batches/batch_1/cancel')).toBe('Batch');
    expect(schemaOfRoute('DELETE', '/v1/files/file-1')).toBe('DeleteFileResponse');
    expect(schemaOfRoute('GET', '/v1/files/file-1/content')).toBeUndefined();
  });
});
