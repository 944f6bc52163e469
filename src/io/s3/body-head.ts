// The first bytes of a body, read before its destination is chosen: a body that ends within them is known whole
// (its sha256 with it), and the rest of a longer one still streams, the bytes read so far first.

export type BodyHead = { whole: Buffer } | { whole?: undefined; rest: AsyncIterable<Buffer> };

/** Reads `body` until it ends (whole) or passes `limit` bytes (rest: every byte, from the first). */
export async function readHead(body: AsyncIterable<Buffer>, limit: number): Promise<BodyHead> {
  const iterator = body[Symbol.asyncIterator]();
  const head: Buffer[] = [];
  let size = 0;
  while (size <= limit) {
    const next = await iterator.next();
    if (next.done === true) return { whole: Buffer.concat(head, size) };
    head.push(next.value);
    size += next.value.length;
  }
  return { rest: followedBy(head, iterator) };
}

async function* followedBy(head: Buffer[], iterator: AsyncIterator<Buffer>): AsyncGenerator<Buffer> {
  yield* head.splice(0);
  for (let next = await iterator.next(); next.done !== true; next = await iterator.next()) yield next.value;
}
