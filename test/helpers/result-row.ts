// A journal row in the raw form results lines are made from: an answered chat row unless patched.
import type { ResultRow } from '../../src/journal/index.js';

export function resultRow(patch: Partial<ResultRow> = {}): ResultRow {
  return {
    seq: 1,
    id: 'r1',
    kind: 'chat',
    state: 'downloaded',
    response: null,
    response_status: 200,
    request_id: null,
    last_error: null,
    task_id: null,
    final_resolution: null,
    output_path: null,
    sha256: null,
    bytes: null,
    meta: null,
    ...patch,
  };
}
