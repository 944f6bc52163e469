// results.jsonl lines are spliced from the journal's raw text; they must equal the object-built form.
import { describe, expect, it } from 'vitest';
import { resultLine, resultLineFromRow } from '../../../src/pipeline/results/results-file.js';
import { makeItem } from '../../helpers/journal-fixtures.js';

describe('resultLineFromRow', () => {
  const row = (item: ReturnType<typeof makeItem>) => ({
    seq: item.seq,
    id: item.id,
    kind: item.kind,
    state: item.state,
    response: item.response === null ? null : JSON.stringify(item.response),
    response_status: item.responseStatus,
    request_id: item.requestId,
    last_error: item.lastError === null ? null : JSON.stringify(item.lastError),
    task_id: item.taskId,
    final_resolution: item.finalResolution,
    output_path: item.outputPath,
    sha256: item.sha256,
    bytes: item.bytes,
    meta: null as string | null,
  });

  it('equals resultLine for an answered item, ids with quotes and unicode included', () => {
    const item = makeItem({
      seq: 7,
      id: 'row "7" é',
      kind: 'chat',
      state: 'succeeded',
      responseStatus: 200,
      requestId: 'req-1',
      response: {
        id: 'chatcmpl-1',
        choices: [{ message: { role: 'assistant', content: 'hi "there"\n' } }],
        usage: { prompt_tokens: 3 },
      },
    });
    expect(resultLineFromRow(row(item))).toBe(resultLine(item));
    expect(JSON.parse(resultLineFromRow(row(item)))).toEqual({
      id: 'batch_req_7',
      custom_id: 'row "7" é',
      response: { status_code: 200, request_id: 'req-1', body: item.response },
      error: null,
    });
  });

  it('equals resultLine for a rejected item and for an answer without request id', () => {
    const rejected = makeItem({
      seq: 2,
      id: 'r',
      state: 'rejected',
      lastError: { status: 400, param: 'temperature', message: 'out of range' },
    });
    expect(resultLineFromRow(row(rejected))).toBe(resultLine(rejected));
    const bare = makeItem({
      seq: 3,
      id: 'b',
      state: 'downloaded',
      responseStatus: null,
      requestId: null,
      response: { ok: true },
    });
    expect(resultLineFromRow(row(bare))).toBe(resultLine(bare));
  });

  it("carries a row's metadata after custom_id, as stored, in every state", () => {
    const meta = JSON.stringify({ notes: 'café "x"\u2028', owner: 'ana' });
    for (const item of [
      makeItem({
        seq: 4,
        id: 'm',
        kind: 'chat',
        state: 'succeeded',
        responseStatus: 200,
        requestId: null,
        response: { ok: 1 },
      }),
      makeItem({ seq: 5, id: 'i', state: 'invalid', lastError: { message: 'bad' } }),
    ]) {
      const line = resultLineFromRow({ ...row(item), meta });
      expect(line.startsWith(`{"id":"batch_req_${item.seq}","custom_id":"${item.id}","meta":${meta},`)).toBe(true);
      expect(JSON.parse(line)).toEqual({ ...JSON.parse(resultLine(item)), meta: JSON.parse(meta) });
    }
  });
});
