// One results.jsonl line per item in a final state, in the OpenAI Batch output form
// {"id", "custom_id", "response", "error"}:
// - a chat/responses answer: response {status_code, request_id, body: the gateway's body}, error null;
// - a video on disk: response {status_code: 200, request_id: null, body: {object: "video.generation",
//   task_id, status: "SUCCESS", final_resolution, file, sha256, bytes}}, error null;
// - rejected: response {status_code, request_id, body: the gateway's error body} and error {code, message};
// - failed and invalid: response null and error {code, message}.
// A row with metadata (CSV metadata columns, a JSONL line's `meta`) has it as `meta` after `custom_id`.
import type { Item, ItemError, ResultRow } from '../../journal/index.js';

/** The line of an item as the journal returns it, without metadata (tests and tools; the rebuild uses the raw row). */
export function resultLine(item: Item): string {
  return resultLineFromRow(itemToResultRow(item));
}

export function itemToResultRow(item: Item): ResultRow {
  return {
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
    meta: null,
  };
}

const isText = (kind: string): boolean => kind === 'chat' || kind === 'responses';

/** One results.jsonl line from the journal's raw row: a stored body is spliced in as it is, not re-parsed. */
export function resultLineFromRow(row: ResultRow): string {
  const head = `{"id":"batch_req_${row.seq}","custom_id":${JSON.stringify(row.id)},${row.meta == null ? '' : `"meta":${row.meta},`}`;
  if ((row.state === 'succeeded' || row.state === 'downloaded') && isText(row.kind)) {
    return (
      `${head}"response":{"status_code":${row.response_status ?? 200},"request_id":${JSON.stringify(row.request_id)},` +
      `"body":${row.response ?? 'null'}},"error":null}`
    );
  }
  if (row.state === 'downloaded') {
    const body = {
      object: 'video.generation',
      task_id: row.task_id,
      status: 'SUCCESS',
      final_resolution: row.final_resolution,
      file: row.output_path,
      sha256: row.sha256,
      bytes: row.bytes,
    };
    return `${head}"response":${JSON.stringify({ status_code: 200, request_id: null, body })},"error":null}`;
  }
  const error = parsedError(row);
  const summary = errorSummary(row, error);
  if (row.state === 'rejected') return `${head}"response":${refusal(row, error)},"error":${summary}}`;
  return `${head}"response":null,"error":${summary}}`;
}

/**
 * The `response` of a request the gateway refused: its status, request id and body as they came (a row
 * journaled before bodies were kept, or over their size bound, has its error summary as the body).
 */
export function refusal(row: ResultRow, error: ItemError | null = parsedError(row)): string {
  const status = row.response_status ?? error?.status ?? 400;
  const body = row.response ?? JSON.stringify({ error });
  return `{"status_code":${status},"request_id":${JSON.stringify(row.request_id)},"body":${body}}`;
}

const parsedError = (row: ResultRow): ItemError | null =>
  row.last_error === null ? null : (JSON.parse(row.last_error) as ItemError);

/** The error's own code and message where it has them; its row's state says the rest. */
function errorSummary(row: ResultRow, error: ItemError | null): string {
  const fallback = stateError(row, error);
  const own = error?.code ?? error?.type;
  const code = typeof own === 'string' && own !== '' ? own : fallback.code;
  return JSON.stringify({ code, message: error?.message ?? fallback.message });
}

function stateError(row: ResultRow, error: ItemError | null): { code: string; message: string } {
  switch (row.state) {
    case 'rejected':
      return { code: `http_${error?.status ?? 400}`, message: 'the gateway refused the request' };
    case 'invalid':
      return { code: 'invalid_row', message: 'the manifest row is invalid' };
    default:
      return {
        code: row.kind === 'video' && row.task_id !== null ? 'task_failed' : 'failed',
        message: 'the item failed',
      };
  }
}
