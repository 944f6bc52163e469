// A final batch's output and error files, derived from its job's journal when asked for: each request of
// the input in exactly one of them. Output: the Batch API's success line (a video's body is the task's final
// status with the file_id of the verified video). Error: a line with error.code and message.
import type { Item } from '../journal/index.js';
import { itemToResultRow, resultLineFromRow } from '../pipeline/results/results-line.js';
import { videoFileId } from './ids.js';

/** How the batch ended, for the rows the run left unfinished. */
export type BatchEnd = 'completed' | 'cancelled' | 'expired';

export type LineFile = 'output' | 'error';

/** Which file an item's line goes to. */
export function fileOf(item: Item): LineFile {
  if (item.state === 'downloaded') return 'output';
  if (item.state === 'succeeded' && item.kind !== 'video') return 'output';
  return 'error';
}

export function outputLine(item: Item, batchId: string): string {
  if (item.kind !== 'video') return resultLineFromRow(itemToResultRow(item));
  const body = {
    object: 'video.generation',
    task_id: item.taskId,
    status: 'SUCCESS',
    final_resolution: item.finalResolution,
    sha256: item.sha256,
    bytes: item.bytes,
    file_id: videoFileId(batchId, item.seq),
  };
  return JSON.stringify({
    id: `batch_req_${item.seq}`,
    custom_id: item.id,
    response: { status_code: 200, request_id: null, body },
    error: null,
  });
}

export function errorLine(item: Item, end: BatchEnd): string {
  if (item.state === 'rejected') return resultLineFromRow(itemToResultRow(item));
  const { code, message } = errorOf(item, end);
  const response =
    item.state === 'failed' && item.taskId !== null
      ? {
          status_code: 200,
          request_id: null,
          body: { object: 'video.generation', task_id: item.taskId, status: 'FAILURE' },
        }
      : null;
  return JSON.stringify({ id: `batch_req_${item.seq}`, custom_id: item.id, response, error: { code, message } });
}

function errorOf(item: Item, end: BatchEnd): { code: string; message: string } {
  const reason = item.lastError?.message;
  switch (item.state) {
    case 'failed':
      return { code: 'failed', message: reason ?? 'the request failed' };
    case 'uncertain':
      return {
        code: 'uncertain',
        message:
          `the request may have reached the gateway but its outcome is unknown${item.taskId ? ` (task ${item.taskId})` : ''}: ` +
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
      return { code: 'failed', message: `the request ended unfinished (${item.state})` };
  }
}
