// results.jsonl lines are spliced from the journal's raw text (a stored body goes in as it is): each line
// is the Batch API's, whatever the row's state, with the row's metadata after custom_id.
import { describe, expect, it } from 'vitest';
import { resultLine, resultLineFromRow } from '../../../src/pipeline/results/results-file.js';
import { itemToResultRow as row } from '../../../src/pipeline/results/results-line.js';
import { makeItem } from '../../helpers/journal-fixtures.js';

describe('resultLineFromRow', () => {
  it("splices an answered row's body, ids with quotes and unicode included", () => {
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
    expect(JSON.parse(resultLineFromRow(row(item)))).toEqual({
      id: 'batch_req_7',
      custom_id: 'row "7" é',
      response: { status_code: 200, request_id: 'req-1', body: item.response },
      error: null,
    });
  });

  it("keeps a refusal's status and error, and an answer's null request id", () => {
    const rejected = makeItem({
      seq: 2,
      id: 'r',
      state: 'rejected',
      lastError: { status: 400, param: 'temperature', message: 'out of range' },
    });
    const refusal = { status: 400, param: 'temperature', message: 'out of range' };
    expect(JSON.parse(resultLineFromRow(row(rejected)))).toEqual({
      id: 'batch_req_2',
      custom_id: 'r',
      response: { status_code: 400, request_id: null, body: { error: refusal } },
      error: { code: 'http_400', message: 'out of range' },
    });
    const bare = makeItem({
      seq: 3,
      id: 'b',
      state: 'downloaded',
      responseStatus: null,
      requestId: null,
      response: { ok: true },
    });
    expect(resultLineFromRow(row(bare))).toBe(
      '{"id":"batch_req_3","custom_id":"b","response":{"status_code":200,"request_id":null,"body":{"ok":true}},"error":null}',
    );
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
