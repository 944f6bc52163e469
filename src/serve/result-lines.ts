// A final batch's output and error files, derived from its job's journal when asked for: each request of
// the input in exactly one of them. Output: the Batch API's success line (a video's body is the task's final
// status with the file_id of the verified video). Error: a line with error.code and message.
import type { ItemError, ResultRow } from '../journal/index.js';
import { refusal, resultLineFromRow } from '../pipeline/terms.js';
import { videoFileId } from './ids.js';

/** How the batch ended, for the rows the run left unfinished. */
export type BatchEnd = 'completed' | 'cancelled' | 'expired';

export type LineFile = 'output' | 'error';

/** Which file a row's line goes to. */
export function fileOf(row: Pick<ResultRow, 'state' | 'kind'>): LineFile {
  if (row.state === 'downloaded') return 'output';
  if (row.state === 'succeeded' && row.kind !== 'video') return 'output';
  return 'error';
}

/**
 * A batch's lines carry no row metadata: its input lines have none of their own. A `request_id` the gateway did
 * not give is left out: OpenAI's schema types it a string, never null. (Inside JSON strings a quote is escaped,
 * so the first bare `"request_id":null,` is the response's own, ahead of its body.)
 */
const lineOf = (row: ResultRow): string => resultLineFromRow({ ...row, meta: null }).replace('"request_id":null,', '');

export function outputLine(row: ResultRow, batchId: string): string {
  if (row.kind !== 'video') return lineOf(row);
  const body = {
    object: 'video.generation',
    task_id: row.task_id,
    status: 'SUCCESS',
    final_resolution: row.final_resolution,
    sha256: row.sha256,
    bytes: row.bytes,
    file_id: videoFileId(batchId, row.seq),
  };
  return JSON.stringify({
    id: `batch_req_${row.seq}`,
    custom_id: row.id,
    response: { status_code: 200, ...(row.request_id === null ? {} : { request_id: row.request_id }), body },
    error: null,
  });
}

/**
 * A request the gateway answered with an HTTP error has that answer as its `response` (status, request id and
 * body unchanged) and `error: null`, as OpenAI's error file does; `error` is for outcomes that are not answers.
 */
export function errorLine(row: ResultRow, end: BatchEnd): string {
  if (row.state === 'rejected') {
    const response = refusal(row).replace('"request_id":null,', '');
    return `{"id":"batch_req_${row.seq}","custom_id":${JSON.stringify(row.id)},"response":${response},"error":null}`;
  }
  const { code, message } = errorOf(row, end);
  const response =
    row.state === 'failed' && row.task_id !== null
      ? {
          status_code: 200,
          body: { object: 'video.generation', task_id: row.task_id, status: 'FAILURE' },
        }
      : null;
  return JSON.stringify({ id: `batch_req_${row.seq}`, custom_id: row.id, response, error: { code, message } });
}

function errorOf(row: ResultRow, end: BatchEnd): { code: string; message: string } {
  const reason = row.last_error === null ? undefined : (JSON.parse(row.last_error) as ItemError).message;
  switch (row.state) {
    case 'failed':
      return { code: 'failed', message: reason ?? 'the request failed' };
    case 'uncertain':
      return {
        code: 'uncertain',
        message:
          `the request may have reached the gateway but its outcome is unknown${row.task_id ? ` (task ${row.task_id})` : ''}: ` +
          'it is never sent again by itself; an operator settles it with `gbatch resolve`',
      };
    case 'deferred':
      return {
        code: 'budget_exceeded',
        message: reason ?? 'the batch budget (or the gateway balance) left no room for it',
      };
    case 'cancelled':
      return { code: 'batch_cancelled', message: 'the batch was cancelled before the request was sent' };
    case 'invalid':
      return { code: 'invalid_request', message: reason ?? 'the request is invalid' };
    default:
      if (end === 'expired')
        return { code: 'batch_expired', message: 'the batch expired before the request completed' };
      if (end === 'cancelled')
        return { code: 'batch_cancelled', message: 'the batch was cancelled before the request completed' };
      return { code: 'failed', message: `the request ended unfinished (${row.state})` };
  }
}
