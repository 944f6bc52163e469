// Physical line numbers from byte offsets. csv-parse's own `info.lines` counts a CRLF inside a
// quoted cell as two lines, so lines are counted here, in the bytes it was given.

export function countNewlines(buf: Buffer, from = 0, to = buf.length): number {
  let count = 0;
  for (let i = buf.indexOf(10, from); i !== -1 && i < to; i = buf.indexOf(10, i + 1)) count++;
  return count;
}

/** Fed the stream's chunks in order; answers for offsets that never go backwards. */
export class LineCounter {
  private readonly chunks: Buffer[] = [];
  /** Offset of chunks[0][0], and how far into chunks[0] the count has got. */
  private chunkStart = 0;
  private position = 0;
  private newlines = 0;

  feed(chunk: Buffer): void {
    this.chunks.push(chunk);
  }

  /** How many line breaks lie before `offset` (relative to the first byte fed). */
  newlinesBefore(offset: number): number {
    if (offset < this.position) throw new Error(`LineCounter: offset ${offset} is behind ${this.position}`);
    while (this.position < offset) {
      const chunk = this.chunks[0];
      if (chunk === undefined) throw new Error(`LineCounter: offset ${offset} is beyond the bytes fed`);
      const chunkEnd = this.chunkStart + chunk.length;
      const until = Math.min(offset, chunkEnd);
      this.newlines += countNewlines(chunk, this.position - this.chunkStart, until - this.chunkStart);
      this.position = until;
      if (until === chunkEnd) {
        this.chunks.shift();
        this.chunkStart = chunkEnd;
      }
    }
    return this.newlines;
  }

  /** The 1-based line of the byte just before `endOffset`: the last line of a record ending there. */
  lineEndingAt(endOffset: number): number {
    return 1 + this.newlinesBefore(Math.max(0, endOffset - 1));
  }
}
