// A derived file's answer: its content made as it is sent, exactly the announced bytes (whole or a Range),
// and cut with an error rather than sent wrong when the content no longer matches its counted length.
import { describe, expect, it } from 'vitest';
import { streamedFileResponse } from '../../src/io/file-response.js';

const content = Buffer.from('line one\nline two\nline three\n');

/** The content in chunks of `size` bytes, as the journal's pages give it. */
async function* chunksOf(bytes: Buffer, size = 7): AsyncGenerator<Buffer> {
  for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size);
}

describe('streamedFileResponse', () => {
  it('sends the whole content with its length', async () => {
    const response = streamedFileResponse(content.length, () => chunksOf(content), undefined, 'application/jsonl');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-length')).toBe(String(content.length));
    expect(Buffer.from(await response.arrayBuffer()).equals(content)).toBe(true);
  });

  it.each([
    ['bytes=3-12', 3, 12],
    ['bytes=-5', content.length - 5, content.length - 1],
    ['bytes=20-', 20, content.length - 1],
  ])('%s: the bytes asked for, across chunk boundaries', async (range, start, end) => {
    const response = streamedFileResponse(content.length, () => chunksOf(content), range, 'application/jsonl');
    expect(response.status).toBe(206);
    expect(response.headers.get('content-range')).toBe(`bytes ${start}-${end}/${content.length}`);
    expect(Buffer.from(await response.arrayBuffer()).equals(content.subarray(start, end + 1))).toBe(true);
  });

  it('answers 416 to a range past the end', () => {
    const response = streamedFileResponse(content.length, () => chunksOf(content), 'bytes=500-', 'application/jsonl');
    expect(response.status).toBe(416);
  });

  it.each([
    ['shorter', content.subarray(0, content.length - 4)],
    ['longer', Buffer.concat([content, Buffer.from('line four\n')])],
  ])('fails the transfer when the content came out %s than counted', async (_how, changed) => {
    const response = streamedFileResponse(content.length, () => chunksOf(changed), undefined, 'application/jsonl');
    await expect(response.arrayBuffer()).rejects.toThrow();
  });
});
