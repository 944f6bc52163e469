// A small journal in the shapes a finished run leaves: settled videos (one over its estimate), a video still
// running, chat done / rejected, an uncertain responses item and an invalid row.
import { entry, ingest, submitChange } from './journal-fixtures.js';
import type { SyncJournal } from './journal-raw.js';

export function seedReportJournal(journal: SyncJournal): void {
  ingest(journal, [
    entry('v1', {
      kind: 'video',
      model: 'video-fast',
      resolution: '720p',
      estimateUsd: 0.5,
      sourceFile: 'jobs/videos.csv',
      sourceLine: 2,
    }),
    entry('v2', {
      kind: 'video',
      model: 'video-fast',
      resolution: '720p',
      estimateUsd: 0.5,
      hasReferenceVideo: true,
      sourceFile: 'jobs/videos.csv',
      sourceLine: 3,
    }),
    entry('v3', {
      kind: 'video',
      model: 'video-pro',
      resolution: '1080p',
      estimateUsd: 1,
      sourceFile: 'jobs/videos.csv',
      sourceLine: 4,
    }),
    entry('c1', { estimateUsd: 0.01, sourceFile: 'jobs/chat.jsonl', sourceLine: 1 }),
    entry('c2', { estimateUsd: 0.01, sourceFile: 'jobs/chat.jsonl', sourceLine: 2 }),
    entry('bad', {
      state: 'invalid',
      model: null,
      request: null,
      estimateUsd: 0,
      lastError: { message: 'line 3: prompt: must not be blank' },
      sourceFile: 'jobs/chat.jsonl',
      sourceLine: 3,
    }),
    entry('r1', {
      kind: 'responses',
      model: 'chat-large',
      estimateUsd: 0.02,
      sourceFile: 'jobs/chat.jsonl',
      sourceLine: 4,
    }),
  ]);
  journal.apply(['v1', 'v2', 'v3', 'c1', 'c2', 'r1'].map((id) => submitChange(journal.get(id)!)));
  journal.apply([
    { id: 'v1', event: 'accept', patch: { taskId: 'task-v1' } },
    { id: 'v2', event: 'accept', patch: { taskId: 'task-v2' } },
    { id: 'v3', event: 'accept', patch: { taskId: 'task-v3' } },
    {
      id: 'c1',
      event: 'complete',
      patch: { reservedUsd: 0, actualUsd: 0.004, totalTokens: 1500, response: { id: 'x' }, responseStatus: 200 },
    },
    {
      id: 'c2',
      event: 'reject',
      patch: {
        reservedUsd: 0,
        lastError: { status: 400, type: 'invalid_request_error', message: '400 =bad "quote", here' },
      },
    },
    { id: 'r1', event: 'lose', patch: { lastError: { message: 'headers timeout' } } },
  ]);
  journal.apply([
    {
      id: 'v1',
      event: 'finish',
      patch: { reservedUsd: 0, actualUsd: 0.4, totalTokens: 108_900, gatewayChargeUsd: 0.41 },
    },
    {
      id: 'v2',
      event: 'finish',
      patch: { reservedUsd: 0, actualUsd: 0.6, totalTokens: 150_000, finalResolution: '1080p' },
    },
    { id: 'v3', event: 'progress' },
    { id: 'c1', event: 'store', patch: { outputPath: 'out/job/results.jsonl' } },
  ]);
  journal.apply([
    { id: 'v1', event: 'store', patch: { outputPath: 'out/job/v1.mp4', sha256: 'a'.repeat(64), bytes: 1234 } },
    { id: 'v2', event: 'store', patch: { outputPath: 'out/job/v2.mp4', sha256: 'b'.repeat(64), bytes: 2345 } },
  ]);
}
