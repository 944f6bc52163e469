// Rows cross from the scan worker to the main thread as columns; what arrives is what was scanned.
import { describe, expect, it } from 'vitest';
import { BUILTIN_PRICING } from '../../src/core/pricing.js';
import { estimateRequest } from '../../src/core/estimate.js';
import { ColumnBuilder, compactRow, rowsOf } from '../../src/pipeline/scan-protocol.js';
import type { ScannedRow } from '../../src/pipeline/scan-manifests.js';
import type { ItemKind } from '../../src/core/states.js';

function scanned(id: string, kind: ItemKind, request: Record<string, unknown>, line: number): ScannedRow {
  return {
    row: { file: 'm.jsonl', line, id, kind, model: request.model as string, request, requestJson: JSON.stringify(request) },
    estimate: estimateRequest(kind, request, BUILTIN_PRICING),
  };
}

const rows: ScannedRow[] = [
  scanned('chat-1', 'chat', { model: 'chat-small', messages: [{ role: 'user', content: 'héllo' }] }, 2),
  scanned('video-ref', 'video', { model: 'video-pro', prompt: 'p', resolution: '1080p', duration: 5, video_url: 'https://example.com/a.mp4' }, 3),
  scanned('video', 'video', { model: 'video-fast', prompt: 'q', resolution: '720p', duration: 5 }, 9_000_001),
];

describe('ColumnBuilder and rowsOf', () => {
  it('a batch survives the structured clone between threads row for row', () => {
    const builder = new ColumnBuilder(4);
    for (const row of rows) builder.add(row);

    const received = structuredClone(builder.take());

    expect([...rowsOf(received)]).toEqual(rows.map(compactRow));
    expect([...rowsOf(received)][1]).toMatchObject({ kind: 'video', hasReferenceVideo: true, resolution: '1080p' });
  });

  it('starts empty after each take, so batches never share rows', () => {
    const builder = new ColumnBuilder(4);
    builder.add(rows[0]!);
    builder.add(rows[1]!);
    const first = builder.take();
    builder.add(rows[2]!);
    const second = builder.take();

    expect([...rowsOf(first)].map((r) => r.id)).toEqual(['chat-1', 'video-ref']);
    expect([...rowsOf(second)]).toEqual([compactRow(rows[2]!)]);
    expect(builder.size).toBe(0);
  });
});
