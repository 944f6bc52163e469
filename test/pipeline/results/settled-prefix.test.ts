import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  fileIdentity,
  handedPrefix,
  handPrefixOn,
  reusablePrefix,
} from '../../../src/pipeline/results/settled-prefix.js';
import { openSqliteStore } from '../../helpers/journal-raw.js';
import { useTempDir } from '../../helpers/journal-fixtures.js';

const tmp = useTempDir();

describe('the settled prefix handed from one rebuild to the next', () => {
  it('reads back through the journal what the last rebuild handed on, for that file only', async () => {
    const store = openSqliteStore(join(tmp.dir(), 'job.db'));
    try {
      const prefix = { seq: 12, bytes: 3456, file: { ino: 77, size: 3456, mtimeMs: 1_700_000_000_123.5 } };
      expect(await handedPrefix(store.coordination, 'h:/out/results.jsonl')).toBeUndefined();
      await handPrefixOn(store.coordination, 'h:/out/results.jsonl', prefix);
      expect(await handedPrefix(store.coordination, 'h:/out/results.jsonl')).toEqual(prefix);
      expect(await handedPrefix(store.coordination, 'h:/out/other.jsonl')).toBeUndefined();
    } finally {
      await store.close();
    }
  });

  it.each([
    ['text that is not JSON', 'not json'],
    ['a number', '7'],
    ['null', 'null'],
    ['no file identity', '{"seq":1,"bytes":10}'],
    ['a negative byte count', '{"seq":1,"bytes":-1,"file":{"ino":1,"size":10,"mtimeMs":1}}'],
    ['a fractional seq', '{"seq":1.5,"bytes":10,"file":{"ino":1,"size":10,"mtimeMs":1}}'],
    ['an inode that is a string', '{"seq":1,"bytes":10,"file":{"ino":"1","size":10,"mtimeMs":1}}'],
  ])('a handed record that is not a prefix (%s) reuses nothing: the file is written whole', async (_, text) => {
    const store = openSqliteStore(join(tmp.dir(), 'job.db'));
    try {
      await store.coordination.recordHandover('h:/out/results.jsonl', text);
      expect(await handedPrefix(store.coordination, 'h:/out/results.jsonl')).toBeUndefined();
    } finally {
      await store.close();
    }
  });
});

describe('reusablePrefix', () => {
  it('keeps the prefix of the very file it describes, and not of a file changed since', async () => {
    const target = join(tmp.dir(), 'results.jsonl');
    writeFileSync(target, 'line 1\nline 2\n');
    const prefix = { seq: 2, bytes: 7, file: fileIdentity(statSync(target)) };
    expect(await reusablePrefix(target, prefix, 5)).toEqual(prefix);
    // An item of the prefix open again: its line must be rewritten.
    expect(await reusablePrefix(target, prefix, 1)).toBeUndefined();
    writeFileSync(target, 'line 1\nline 2\nline 3\n');
    expect(await reusablePrefix(target, prefix, 5)).toBeUndefined();
    expect(await reusablePrefix(join(tmp.dir(), 'gone.jsonl'), prefix, 5)).toBeUndefined();
  });
});
