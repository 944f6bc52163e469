// A batch's output and error lines, made from the journal's raw rows: which file a row goes to, a stored
// body spliced as it is, and each error code a row can end with.
import { describe, expect, it } from 'vitest';
import type { ResultRow } from '../../src/journal/index.js';
import { errorLine, fileOf, outputLine } from '../../src/serve/result-lines.js';
import { schemaChecks } from '../helpers/openai-schemas.js';
import { resultRow } from '../helpers/result-row.js';

const BATCH = 'batch_0123456789abcdef01234567';

const row = (patch: Partial<ResultRow>): ResultRow =>
  resultRow({ seq: 7, id: 'req-7', response_status: null, ...patch });

const parsed = (line: string): Record<string, unknown> => JSON.parse(line) as Record<string, unknown>;

describe('fileOf', () => {
  it('puts answered chat and responses rows and downloaded videos in the output file, every other row in the error file', () => {
    expect(fileOf({ kind: 'chat', state: 'downloaded' })).toBe('output');
    expect(fileOf({ kind: 'responses', state: 'succeeded' })).toBe('output');
    expect(fileOf({ kind: 'video', state: 'downloaded' })).toBe('output');
    expect(fileOf({ kind: 'video', state: 'succeeded' })).toBe('error');
    for (const state of ['pending', 'submitting', 'submitted', 'running', 'failed', 'rejected', 'invalid'] as const)
      expect(fileOf({ kind: 'chat', state })).toBe('error');
    for (const state of ['uncertain', 'deferred', 'cancelled'] as const)
      expect(fileOf({ kind: 'video', state })).toBe('error');
  });
});

describe('outputLine', () => {
  it("splices a chat row's stored body as it is, with its status and request id, and no metadata", () => {
    const body = '{"id":"chatcmpl-1",  "choices":[{"message":{"content":"caf\\u00e9"}}]}';
    const line = outputLine(
      row({ response: body, response_status: 200, request_id: 'req_abc', meta: '{"owner":"ana"}' }),
      BATCH,
    );
    expect(line).toContain(`"body":${body}`);
    expect(parsed(line)).toEqual({
      id: 'batch_req_7',
      custom_id: 'req-7',
      response: { status_code: 200, request_id: 'req_abc', body: JSON.parse(body) as unknown },
      error: null,
    });
  });

  it("gives a downloaded video the task's final status and the file id of its verified video", () => {
    const line = outputLine(
      row({
        kind: 'video',
        task_id: 'task_9',
        final_resolution: '1080p',
        sha256: 'ab'.repeat(32),
        bytes: 1234,
        output_path: '/data/videos/req-7.mp4',
      }),
      BATCH,
    );
    expect(parsed(line)).toEqual({
      id: 'batch_req_7',
      custom_id: 'req-7',
      response: {
        status_code: 200,
        body: {
          object: 'video.generation',
          task_id: 'task_9',
          status: 'SUCCESS',
          final_resolution: '1080p',
          sha256: 'ab'.repeat(32),
          bytes: 1234,
          file_id: `file-vid-7-${BATCH}`,
        },
      },
      error: null,
    });
  });
});

describe('errorLine', () => {
  const error = (patch: Partial<ResultRow>, end: 'completed' | 'cancelled' | 'expired' = 'completed') =>
    parsed(errorLine(row(patch), end)) as { response: unknown; error: { code: string; message: string } };

  it("gives a refused request the gateway's status, request id and body as they came, and no error", () => {
    const body = '{"error":{"message":"  no such\\nmodel ","type":"invalid_request_error","code":null},"hint":[1]}';
    const line = errorLine(
      row({
        state: 'rejected',
        response: body,
        response_status: 404,
        request_id: 'req_gw_1',
        last_error: JSON.stringify({ status: 404, message: 'no such model' }),
      }),
      'completed',
    );
    expect(line).toContain(`"body":${body}`);
    expect(parsed(line)).toEqual({
      id: 'batch_req_7',
      custom_id: 'req-7',
      response: { status_code: 404, request_id: 'req_gw_1', body: JSON.parse(body) as unknown },
      error: null,
    });
  });

  it('gives a refusal journaled without its body the error summary as the body, and no error', () => {
    const refusal = { status: 400, code: 'model_not_found', message: 'no such model' };
    expect(error({ state: 'rejected', last_error: JSON.stringify(refusal) })).toEqual({
      id: 'batch_req_7',
      custom_id: 'req-7',
      response: { status_code: 400, body: { error: refusal } },
      error: null,
    });
  });

  it('names a failed video task in the response, and the reason in the message', () => {
    const line = error({
      kind: 'video',
      state: 'failed',
      task_id: 'task_3',
      last_error: JSON.stringify({ message: 'content policy' }),
    });
    expect(line.response).toEqual({
      status_code: 200,
      body: { object: 'video.generation', task_id: 'task_3', status: 'FAILURE' },
    });
    expect(line.error).toEqual({ code: 'failed', message: 'content policy' });
  });

  it('says an uncertain row is never sent again, with its task id when one is known', () => {
    const line = error({ kind: 'video', state: 'uncertain', task_id: 'task_5' });
    expect(line.response).toBeNull();
    expect(line.error.code).toBe('uncertain');
    expect(line.error.message).toContain('(task task_5)');
    expect(line.error.message).toContain('gbatch resolve');
    expect(error({ state: 'uncertain' }).error.message).not.toContain('(task');
  });

  it('ends a deferred row as budget_exceeded, a cancelled one as batch_cancelled, an invalid one as invalid_request', () => {
    expect(error({ state: 'deferred', last_error: JSON.stringify({ message: 'over 0.5 USD' }) }).error).toEqual({
      code: 'budget_exceeded',
      message: 'over 0.5 USD',
    });
    expect(error({ state: 'deferred' }).error.code).toBe('budget_exceeded');
    expect(error({ state: 'cancelled' }).error.code).toBe('batch_cancelled');
    expect(error({ state: 'invalid', last_error: JSON.stringify({ message: 'no model' }) }).error).toEqual({
      code: 'invalid_request',
      message: 'no model',
    });
  });

  it("names an unfinished row by how the batch ended: expired, cancelled, or the row's state", () => {
    expect(error({ state: 'pending' }, 'expired').error.code).toBe('batch_expired');
    expect(error({ state: 'running' }, 'cancelled').error.code).toBe('batch_cancelled');
    expect(error({ state: 'submitted' }, 'completed').error).toEqual({
      code: 'failed',
      message: 'the request ended unfinished (submitted)',
    });
  });
});

describe("the lines against OpenAI's BatchRequestOutput schema", () => {
  const check = schemaChecks()('BatchRequestOutput');
  const video = {
    kind: 'video' as const,
    task_id: 'task_9',
    final_resolution: '720p',
    sha256: 'cd'.repeat(32),
    bytes: 9,
  };

  it('follows it for every kind of line, a request id the gateway did not give left out rather than null', () => {
    const lines = [
      outputLine(row({ state: 'succeeded', response: '{"id":"c"}', response_status: 200 }), BATCH),
      outputLine(row({ state: 'succeeded', response: '{"id":"c"}', response_status: 200, request_id: 'req_1' }), BATCH),
      outputLine(row({ ...video, state: 'downloaded', output_path: '/v/a.mp4' }), BATCH),
      errorLine(
        row({ state: 'rejected', last_error: JSON.stringify({ status: 429, message: 'slow down' }) }),
        'completed',
      ),
      errorLine(
        row({ state: 'rejected', response: '{"error":{"message":"m"}}', response_status: 400, request_id: 'req_2' }),
        'completed',
      ),
      errorLine(row({ ...video, state: 'failed', last_error: JSON.stringify({ message: 'policy' }) }), 'completed'),
      ...(['uncertain', 'deferred', 'cancelled', 'invalid', 'submitted'] as const).map((state) =>
        errorLine(row({ state }), 'expired'),
      ),
    ];
    for (const line of lines) expect({ line, problems: check(JSON.parse(line)) }).toEqual({ line, problems: [] });
    expect(parsed(lines[0]!).response).not.toHaveProperty('request_id');
    expect(parsed(lines[1]!).response).toMatchObject({ request_id: 'req_1' });
  });
});
