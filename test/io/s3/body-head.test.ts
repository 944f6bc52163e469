// A body read up to a limit: whole when it ends within it, else every byte still to come, the first ones first.
import { describe, expect, it } from 'vitest';
import { readHead } from '../../../src/io/s3/body-head.js';

async function* chunks(...sizes: number[]): AsyncGenerator<Buffer> {
  let n = 0;
  for (const size of sizes) yield Buffer.alloc(size, n++);
}

async function all(body: AsyncIterable<Buffer>): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const part of body) parts.push(part);
  return Buffer.concat(parts);
}

describe('readHead', () => {
  it('gives a body that ends within the limit whole, the limit itself included', async () => {
    expect((await readHead(chunks(3, 4, 3), 10)).whole).toEqual(await all(chunks(3, 4, 3)));
    expect((await readHead(chunks(), 10)).whole).toEqual(Buffer.alloc(0));
  });

  it('gives a longer body as a stream of every byte, in order', async () => {
    const head = await readHead(chunks(3, 4, 5, 6), 10);
    expect(head.whole).toBeUndefined();
    expect(await all((head as { rest: AsyncIterable<Buffer> }).rest)).toEqual(await all(chunks(3, 4, 5, 6)));
  });

  it('passes on a failure of the body, read before or after the limit', async () => {
    async function* failing(after: number): AsyncGenerator<Buffer> {
      yield Buffer.alloc(after);
      throw new Error('reset');
    }
    await expect(readHead(failing(2), 10)).rejects.toThrow('reset');
    const head = await readHead(failing(12), 10);
    await expect(all((head as { rest: AsyncIterable<Buffer> }).rest)).rejects.toThrow('reset');
  });
});
