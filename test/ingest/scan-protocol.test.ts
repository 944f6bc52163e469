// Rows cross from the scan worker to the main thread as columns; what arrives is what was scanned.
import { describe, expect, it } from 'vitest';
import { BUILTIN_PRICING } from '../../src/core/pricing.js';
import { estimateRequest } from '../../src/core/estimate.js';
import { ColumnBuilder, compactRow, DeferredBuilder, deferredRowsOf, rowsOf } from '../../src/ingest/scan-protocol.js';
import type { ScannedRow } from '../../src/ingest/scan-manifests.js';
import type { ItemKind } from '../../src/core/states.js';

function scanned(id: string, kind: ItemKind, request: Record<string, unknown>, line: number): ScannedRow {
  return {
    row: {
      file: 'm.jsonl',
      line,
      id,
      kind,
      model: request.model as string,
      request,
      requestJson: JSON.stringify(request),
    },
    estimate: estimateRequest(kind, request, BUILTIN_PRICING),
  };
}

const rows: ScannedRow[] = [
  scanned('chat-1', 'chat', { model: 'chat-small', messages: [{ role: 'user', content: 'héllo' }] }, 2),
  scanned(
    'video-ref',
    'video',
    { model: 'video-pro', prompt: 'p', resolution: '1080p', duration: 5, video_url: 'https://example.com/a.mp4' },
    3,
  ),
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

describe('DeferredBuilder and deferredRowsOf', () => {
  const header = {
    names: ['id', 'kind', 'model', 'prompt'],
    index: new Map([
      ['id', 0],
      ['kind', 1],
      ['model', 2],
      ['prompt', 3],
    ]),
    meta: new Map<string, string>(),
  };
  const records = [
    { cells: ['a', 'chat', 'chat-small', 'héllo, "you"'], line: 2, from: 20, to: 48, firstLine: 0 },
    { cells: ['short'], line: 3, from: 48, to: 54, firstLine: 0 },
    { cells: ['a', 'chat', 'chat-small', 'line one\nline two', 'extra'], line: 5, from: 54, to: 90, firstLine: 2 },
  ];

  it('records of any width survive the structured clone between threads, record for record', () => {
    const builder = new DeferredBuilder(4);
    for (const record of records) builder.add('m.csv', header, record);

    const received = structuredClone(builder.take());

    expect(received).toMatchObject({ file: 'm.csv', header: header.names });
    expect([...deferredRowsOf(received)]).toEqual(records);
    expect(builder.size).toBe(0);
  });

  it('keeps one file per batch: records of another file or header do not fit until the batch is taken', () => {
    const builder = new DeferredBuilder(4);
    builder.add('m.csv', header, records[0]!);

    expect(builder.fits('m.csv', header)).toBe(true);
    expect(builder.fits('other.csv', header)).toBe(false);
    expect(builder.fits('m.csv', { ...header })).toBe(false);
    builder.take();
    expect(builder.fits('other.csv', header)).toBe(true);
    expect(() => builder.take()).toThrow(/no deferred rows/);
  });
});
