// JSONL: a byte that is not UTF-8 is placed on the line readline numbers it with, however the chunks fall.
import { createInterface } from 'node:readline';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { fieldWithReplacement, InvalidUtf8Lines } from '../../src/manifest/invalid-utf8-lines.js';

async function badLines(bytes: Buffer, cut: number): Promise<Array<[number, number]>> {
  const input = Readable.from(
    [bytes.subarray(0, cut), bytes.subarray(cut)].filter((c) => c.length > 0),
    { objectMode: false },
  );
  const invalid = new InvalidUtf8Lines(input);
  const lines = createInterface({ input, crlfDelay: Infinity });
  invalid.count(lines);
  const found: Array<[number, number]> = [];
  let n = 0;
  for await (const _line of lines) {
    n++;
    const bad = invalid.take(n);
    if (bad) found.push([n, bad.byte]);
  }
  return found;
}

describe('InvalidUtf8Lines', () => {
  it('numbers lines as readline does (LF, CRLF, lone CR), for every place the stream is cut', async () => {
    const bytes = Buffer.concat([
      Buffer.from('{"a":"ok"}\r\n{"a":"caf'),
      Buffer.from([0xe9]),
      Buffer.from('"}\n\n{"a":"b"}\r{"a":"'),
      Buffer.from([0xe8]),
      Buffer.from('"}\r\n{"a":"\ufffd fine"}\n{"a":"end'),
      Buffer.from([0xe7]),
    ]);
    for (let cut = 0; cut <= bytes.length; cut++) {
      expect(await badLines(bytes, cut), `cut at ${cut}`).toEqual([
        [2, 0xe9],
        [5, 0xe8],
        [7, 0xe7],
      ]);
    }
  });
});

describe('fieldWithReplacement', () => {
  it('names the one field (up to two levels) whose text holds U+FFFD', () => {
    expect(fieldWithReplacement('{"id":"a","prompt":"caf\ufffd"}')).toBe('prompt');
    expect(fieldWithReplacement('{"custom_id":"a","body":{"model":"m","input":"caf\ufffd"}}')).toBe('body.input');
    expect(fieldWithReplacement('{"id":"\ufffd","prompt":"caf\ufffd"}')).toBeUndefined();
    expect(fieldWithReplacement('{"id":"a", broken')).toBeUndefined();
  });
});
