// JSONL manifests: both line forms of the contract, broken lines, blank lines, ids.
import { describe, expect, it } from 'vitest';
import { RAW_TEXT_LIMIT } from '../../src/manifest/types.js';
import { jsonl, messagesOf, readAll, rowsOf, tempDir, writeManifest } from '../helpers/manifest-reading.js';

const dir = tempDir();
const chatBody = { model: 'chat-small', messages: [{ role: 'user', content: 'hi' }] };

describe('JSONL line forms', () => {
  it('reads OpenAI Batch lines: kind from url, request = body, id = custom_id', async () => {
    const file = writeManifest(
      dir,
      'batch.jsonl',
      jsonl(
        { custom_id: 'c1', method: 'POST', url: '/v1/chat/completions', body: chatBody },
        { custom_id: 'r1', method: 'POST', url: '/v1/responses', body: { model: 'chat-large', input: 'hello' } },
        {
          custom_id: 'v1',
          method: 'POST',
          url: '/v1/video/generations',
          body: { model: 'video-mini', prompt: 'waves', duration: 5 },
        },
      ),
    );
    const rows = rowsOf(await readAll(file));
    expect(rows.map((r) => [r.id, r.kind, r.model, r.line])).toEqual([
      ['c1', 'chat', 'chat-small', 1],
      ['r1', 'responses', 'chat-large', 2],
      ['v1', 'video', 'video-mini', 3],
    ]);
    expect(rows[2]!.request).toEqual({ model: 'video-mini', prompt: 'waves', duration: 5 });
    expect(rows[0]!.file).toBe(file);
  });

  it('reads flat lines: the request is every field but id and kind', async () => {
    const file = writeManifest(dir, 'flat.jsonl', jsonl({ id: 'f1', kind: 'chat', ...chatBody, max_tokens: 50 }));
    const [row] = rowsOf(await readAll(file));
    expect(row!.request).toEqual({ ...chatBody, max_tokens: 50 });
  });

  it('names every problem of an OpenAI Batch line', async () => {
    const file = writeManifest(
      dir,
      'batch-bad.jsonl',
      jsonl(
        { custom_id: 'a', method: 'GET', url: '/v1/embeddings', body: chatBody, priority: 1 },
        { custom_id: 'b', url: '/v1/chat/completions', body: 'hi' },
        { custom_id: 7, method: 'POST', url: '/v1/chat/completions', body: chatBody },
        { method: 'POST', url: '/v1/chat/completions', body: chatBody },
      ),
    );
    expect(messagesOf(await readAll(file)).map((m) => m.slice(file.length))).toEqual([
      ":1 row 'a' field 'method': must be POST, got 'GET'",
      ":1 row 'a' field 'url': must be one of /v1/chat/completions, /v1/responses, /v1/video/generations, got '/v1/embeddings'",
      ":1 row 'a' field 'priority': is not part of an OpenAI Batch line (request fields go in body)",
      ":2 row 'b' field 'method': is required and must be POST",
      ":2 row 'b' field 'body': must be a JSON object, got 'hi'",
      ":3 field 'custom_id': must be a string, got 7",
      ":4 field 'custom_id': is required",
    ]);
  });
});

describe('JSONL lines that are not rows', () => {
  it('reports a malformed line with the parser reason and reads on', async () => {
    const file = writeManifest(
      dir,
      'malformed.jsonl',
      jsonl({ id: 'a', kind: 'chat', ...chatBody }, '{"id": "b", "kind": "chat", oops}', '[1, 2]', {
        id: 'c',
        kind: 'chat',
        ...chatBody,
      }),
    );
    const entries = await readAll(file);
    expect(entries.map((e) => e.ok)).toEqual([true, false, false, true]);
    const malformed = entries[1]!;
    expect(malformed).toMatchObject({ ok: false, line: 2, raw: '{"id": "b", "kind": "chat", oops}' });
    if (malformed.ok) return;
    expect(malformed.id).toBeUndefined();
    expect(malformed.errors).toHaveLength(1);
    expect(malformed.errors[0]!.field).toBeUndefined();
    expect(malformed.errors[0]!.reason).toMatch(/^malformed JSON: .*position 28/);
    expect(messagesOf(entries)[1]).toBe(`${file}:3: a line must be a JSON object, got an array`);
  });

  it('skips blank lines but counts them, and ignores a BOM and CRLF line ends', async () => {
    const text = `\uFEFF${JSON.stringify({ id: 'a', kind: 'chat', ...chatBody })}\r\n\r\n   \r\n\t\r\n${JSON.stringify({ id: 'b', kind: 'chat', ...chatBody })}\r\n\r\n`;
    const entries = await readAll(writeManifest(dir, 'blank.jsonl', text));
    expect(entries.map((e) => (e.ok ? [e.row.id, e.row.line] : e.errors))).toEqual([
      ['a', 1],
      ['b', 5],
    ]);
  });

  it('keeps at most 2 KB of a broken line as its raw text', async () => {
    const long = `{"id": "x", ${'"pad": 1, '.repeat(500)}`;
    const [entry] = await readAll(writeManifest(dir, 'long.jsonl', `${long}\n`));
    expect(entry!.ok).toBe(false);
    if (entry!.ok) return;
    expect(entry!.raw).toBe(`${long.slice(0, RAW_TEXT_LIMIT)}…`);
  });

  it('reads the .ndjson extension as JSONL', async () => {
    const entries = await readAll(writeManifest(dir, 'rows.ndjson', jsonl({ id: 'n', kind: 'chat', ...chatBody })));
    expect(rowsOf(entries).map((r) => r.id)).toEqual(['n']);
  });
});

describe('ids', () => {
  it('requires a non-blank string id', async () => {
    const file = writeManifest(
      dir,
      'ids.jsonl',
      jsonl(
        { kind: 'chat', ...chatBody },
        { id: 12, kind: 'chat', ...chatBody },
        { id: '  ', kind: 'chat', ...chatBody },
        { id: null, kind: 'chat', ...chatBody },
      ),
    );
    expect(messagesOf(await readAll(file)).map((m) => m.slice(file.length))).toEqual([
      ":1 field 'id': is required",
      ":2 field 'id': must be a string, got 12",
      ":3 field 'id': must not be blank",
      ":4 field 'id': must be a string, got null",
    ]);
  });

  it('accepts any characters in an id', async () => {
    const odd = ['../../etc/passwd', "it's", 'tab\there', 'é✓ 漢字', 'line\nbreak'];
    const file = writeManifest(dir, 'odd-ids.jsonl', jsonl(...odd.map((id) => ({ id, kind: 'chat', ...chatBody }))));
    expect(rowsOf(await readAll(file)).map((r) => r.id)).toEqual(odd);
  });

  it('reports a duplicate on the later line, naming the first, whatever state the first was in', async () => {
    const file = writeManifest(
      dir,
      'dupes.jsonl',
      jsonl(
        { id: 'other', kind: 'chat', ...chatBody },
        '',
        { id: 'r1', kind: 'chat', ...chatBody },
        { id: 'r1', kind: 'chat', ...chatBody, temperature: 1 },
        { id: 'bad', kind: 'chat', ...chatBody, temperature: 9 },
        { id: 'r1', kind: 'chat', ...chatBody },
        { id: 'bad', kind: 'chat', ...chatBody },
      ),
    );
    const entries = await readAll(file);
    expect(entries.map((e) => e.ok)).toEqual([true, true, false, false, false, false]);
    expect(messagesOf(entries).map((m) => m.slice(file.length))).toEqual([
      ":4 row 'r1' field 'id': duplicate id 'r1' (first on line 3)",
      ":5 row 'bad' field 'temperature': must be a number from 0 to 2, got 9",
      ":6 row 'r1' field 'id': duplicate id 'r1' (first on line 3)",
      ":7 row 'bad' field 'id': duplicate id 'bad' (first on line 5)",
    ]);
    const dupe = entries[2]!;
    expect(dupe).toMatchObject({ ok: false, line: 4, id: 'r1' });
  });
});
