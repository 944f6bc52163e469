// The three ways to write a row give the same request and the same content hash.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BUILTIN_PRICING } from '../../src/core/pricing.js';
import { canonicalJson, contentHash, hashCanonicalRequest } from '../../src/manifest/content-hash.js';
import type { ManifestRow } from '../../src/manifest/types.js';
import { readManifest } from '../../src/manifest/read-manifest.js';
import { formatRowError } from '../../src/manifest/types.js';
import { jsonl, readAll, rowsOf, tempDir, writeManifest } from '../helpers/manifest-reading.js';

const dir = tempDir();
/** The hash the journal keeps for a row, from the canonical text the reader produced. */
const hashOf = (r: ManifestRow): string => hashCanonicalRequest(r.kind, r.requestJson);

describe('equivalent rows in every form', () => {
  const chatRequest = {
    model: 'chat-small',
    temperature: 0.2,
    max_tokens: 300,
    messages: [
      { role: 'system', content: 'You are terse' },
      { role: 'user', content: 'Name three rivers' },
    ],
  };
  const responsesRequest = {
    model: 'chat-large',
    input: 'Summarise: the sea',
    instructions: 'One line',
    max_output_tokens: 64,
  };
  const videoRequest = {
    model: 'video-pro',
    prompt: 'A lighthouse at dusk',
    resolution: '1080p',
    duration: 5,
    generate_audio: true,
    seed: 7,
  };

  it('OpenAI Batch JSONL, flat JSONL and CSV produce the same requests and hashes', async () => {
    const batch = writeManifest(
      dir,
      'same-batch.jsonl',
      jsonl(
        { custom_id: 'c', method: 'POST', url: '/v1/chat/completions', body: chatRequest },
        { custom_id: 'r', method: 'POST', url: '/v1/responses', body: responsesRequest },
        { custom_id: 'v', method: 'POST', url: '/v1/video/generations', body: videoRequest },
      ),
    );
    const flat = writeManifest(
      dir,
      'same-flat.jsonl',
      jsonl(
        { id: 'c', kind: 'chat', ...chatRequest },
        { kind: 'responses', ...responsesRequest, id: 'r' },
        { id: 'v', kind: 'video', ...videoRequest },
      ),
    );
    const csv = writeManifest(
      dir,
      'same.csv',
      [
        'id,kind,model,prompt,system,temperature,max_tokens,max_output_tokens,resolution,duration,generate_audio,seed',
        'c,chat,chat-small,Name three rivers,You are terse,0.2,300,,,,,',
        'r,responses,chat-large,Summarise: the sea,One line,,,64,,,,',
        'v,video,video-pro,A lighthouse at dusk,,,,,1080p,5,true,7',
      ].join('\n'),
    );
    const forms = await Promise.all([batch, flat, csv].map(async (f) => rowsOf(await readAll(f))));
    for (const rows of forms) {
      expect(rows.map((r) => [r.id, r.kind, r.model])).toEqual([
        ['c', 'chat', 'chat-small'],
        ['r', 'responses', 'chat-large'],
        ['v', 'video', 'video-pro'],
      ]);
      expect(rows.map((r) => r.request)).toEqual([chatRequest, responsesRequest, videoRequest]);
    }
    expect(forms[1]!.map(hashOf)).toEqual(forms[0]!.map(hashOf));
    expect(forms[2]!.map(hashOf)).toEqual(forms[0]!.map(hashOf));
    expect(forms[0]!.map(hashOf)).toEqual(forms[0]!.map((r) => contentHash(r.kind, r.request)));
  });
});

describe('content hash', () => {
  it('is the sha256 of the sorted-key JSON of {kind, request}', () => {
    expect(canonicalJson({ b: 1, a: [{ d: 'x', c: null }], e: undefined })).toBe('{"a":[{"c":null,"d":"x"}],"b":1}');
    expect(contentHash('chat', { model: 'm' })).toMatch(/^[0-9a-f]{64}$/);
  });

  it('ignores key order and formatting, and changes with content or kind', async () => {
    const file = writeManifest(
      dir,
      'hashes.jsonl',
      [
        '{"id":"a","kind":"chat","model":"chat-small","messages":[{"role":"user","content":"hi"}],"temperature":1}',
        '{ "temperature": 1, "messages": [ { "content": "hi", "role": "user" } ], "model": "chat-small", "kind": "chat", "id": "b" }',
        '{"id":"c","kind":"chat","model":"chat-small","messages":[{"role":"user","content":"hi!"}],"temperature":1}',
        '{"id":"d","kind":"chat","model":"chat-small","messages":[{"role":"user","content":"hi"}],"temperature":1.5}',
      ].join('\n'),
    );
    const [a, b, c, d] = rowsOf(await readAll(file)).map(hashOf);
    expect(b).toBe(a);
    expect(new Set([a, c, d]).size).toBe(3);
    expect(contentHash('responses', { model: 'chat-small', input: 'x' })).not.toBe(
      contentHash('chat', { model: 'chat-small', input: 'x' }),
    );
  });
});

describe('manifest files', () => {
  it('refuses an unknown extension at once, naming the file', () => {
    expect(() => readManifest(join(dir, 'rows.txt'), { pricing: BUILTIN_PRICING })).toThrow(
      /rows\.txt.*\.jsonl, \.ndjson or \.csv/,
    );
  });

  it('names a missing file, and a directory, when reading starts', async () => {
    const missing = join(dir, 'missing.jsonl');
    await expect(readAll(missing)).rejects.toThrow(`cannot read manifest ${missing}: ENOENT`);
    const folder = join(dir, 'folder.csv');
    mkdirSync(folder);
    await expect(readAll(folder)).rejects.toThrow(`cannot read manifest ${folder}: not a regular file`);
  });

  it('formats errors as file:line row field: reason', () => {
    expect(formatRowError({ file: 'jobs/a.csv', line: 7, id: 'r7', field: 'duration', reason: 'must be ...' })).toBe(
      "jobs/a.csv:7 row 'r7' field 'duration': must be ...",
    );
    expect(formatRowError({ file: 'a.jsonl', line: 2, reason: 'malformed JSON: x' })).toBe(
      'a.jsonl:2: malformed JSON: x',
    );
    expect(formatRowError({ file: 'a.jsonl', line: 3, id: "it's\nodd", reason: 'r' })).toBe(
      'a.jsonl:3 row "it\'s\\nodd": r',
    );
  });

  it('stops reading when the consumer stops', async () => {
    const file = writeManifest(
      dir,
      'early.csv',
      ['id,kind,model,prompt', 'a,chat,chat-small,hi', 'b,chat,chat-small,hi'].join('\n'),
    );
    const seen: string[] = [];
    for await (const entry of readManifest(file, { pricing: BUILTIN_PRICING })) {
      seen.push(entry.ok ? entry.row.id : 'error');
      break;
    }
    expect(seen).toEqual(['a']);
  });
});
