import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resultLine, resultsPath, writeResultsFile } from '../../../src/pipeline/results/results-file.js';
import { entry, ingest, makeItem, submitChange, useTempDir } from '../../helpers/journal-fixtures.js';
import { requeueChange } from '../../../src/journal/requeue.js';

const tmp = useTempDir();

const chatBody = (text: string) => ({
  id: `chatcmpl-${text}`,
  object: 'chat.completion',
  model: 'chat-small',
  choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
});

describe('resultLine', () => {
  it('a succeeded chat item in the OpenAI Batch output form', () => {
    const body = chatBody('hi');
    const line = JSON.parse(
      resultLine(
        makeItem({ seq: 7, id: 'row-7', state: 'succeeded', response: body, responseStatus: 200, requestId: 'req_7' }),
      ),
    );
    expect(line).toEqual({
      id: 'batch_req_7',
      custom_id: 'row-7',
      response: { status_code: 200, request_id: 'req_7', body },
      error: null,
    });
    expect(Object.keys(line)).toEqual(['id', 'custom_id', 'response', 'error']);
  });

  it("a rejected chat item carries the gateway's status and error in the response, and the error as OpenAI Batch does", () => {
    const lastError = {
      status: 422,
      type: 'invalid_request_error',
      param: 'max_tokens',
      message: '422 max_tokens too large',
    };
    const line = JSON.parse(resultLine(makeItem({ seq: 3, id: 'bad', state: 'rejected', lastError })));
    expect(line).toEqual({
      id: 'batch_req_3',
      custom_id: 'bad',
      response: { status_code: 422, request_id: null, body: { error: lastError } },
      error: { code: 'invalid_request_error', message: '422 max_tokens too large' },
    });
    const bare = JSON.parse(
      resultLine(makeItem({ seq: 4, id: 'bare', state: 'rejected', lastError: { status: 400, message: 'no' } })),
    );
    expect(bare.error).toEqual({ code: 'http_400', message: 'no' });
  });

  it('a video on disk: the task, its final status and resolution, and the local file with its sha256 and bytes', () => {
    const line = JSON.parse(
      resultLine(
        makeItem({
          seq: 5,
          id: 'clip',
          kind: 'video',
          state: 'downloaded',
          taskId: 'task_9',
          finalResolution: '1080p',
          outputPath: 'out/job/clip.mp4',
          sha256: 'ab'.repeat(32),
          bytes: 4096,
        }),
      ),
    );
    expect(line).toEqual({
      id: 'batch_req_5',
      custom_id: 'clip',
      response: {
        status_code: 200,
        request_id: null,
        body: {
          object: 'video.generation',
          task_id: 'task_9',
          status: 'SUCCESS',
          final_resolution: '1080p',
          file: 'out/job/clip.mp4',
          sha256: 'ab'.repeat(32),
          bytes: 4096,
        },
      },
      error: null,
    });
  });

  it('failed and invalid rows: no response, the error with a code and message', () => {
    const failedVideo = JSON.parse(
      resultLine(
        makeItem({
          seq: 6,
          id: 'v',
          kind: 'video',
          state: 'failed',
          taskId: 'task_1',
          lastError: { message: 'upstream refused' },
        }),
      ),
    );
    expect(failedVideo).toEqual({
      id: 'batch_req_6',
      custom_id: 'v',
      response: null,
      error: { code: 'task_failed', message: 'upstream refused' },
    });
    const oversize = JSON.parse(
      resultLine(
        makeItem({
          seq: 7,
          id: 'c',
          state: 'failed',
          lastError: { code: 'response_too_large', message: 'answer larger than --max-response-bytes (10 bytes)' },
        }),
      ),
    );
    expect(oversize.error).toEqual({
      code: 'response_too_large',
      message: 'answer larger than --max-response-bytes (10 bytes)',
    });
    const invalid = JSON.parse(
      resultLine(
        makeItem({
          seq: 8,
          id: 'i',
          kind: 'invalid' as never,
          state: 'invalid',
          lastError: { message: 'rows.csv:9: field model: required' },
        }),
      ),
    );
    expect(invalid).toEqual({
      id: 'batch_req_8',
      custom_id: 'i',
      response: null,
      error: { code: 'invalid_row', message: 'rows.csv:9: field model: required' },
    });
    const abandoned = JSON.parse(resultLine(makeItem({ seq: 9, id: 'a', state: 'failed', lastError: null })));
    expect(abandoned.error).toEqual({ code: 'failed', message: 'the item failed' });
  });

  it('is one line of JSON whatever the body holds', () => {
    const text = resultLine(makeItem({ state: 'succeeded', response: { text: 'a\nb\u2028c' }, responseStatus: 200 }));
    expect(text).not.toMatch(/\n/);
    expect(JSON.parse(text).response.body.text).toBe('a\nb\u2028c');
  });
});

describe('writeResultsFile', () => {
  function seedMixed(journal: ReturnType<typeof tmp.open>): void {
    ingest(journal, [
      entry('c-done'),
      entry('c-new'),
      entry('v-succeeded', { kind: 'video' }),
      entry('r-rejected', { kind: 'responses' }),
      entry('c-pending'),
      entry('r-new', { kind: 'responses' }),
      entry('c-uncertain'),
    ]);
    journal.apply(
      ['c-done', 'c-new', 'v-succeeded', 'r-rejected', 'r-new', 'c-uncertain'].map((id) =>
        submitChange(journal.get(id)!),
      ),
    );
    journal.apply([
      {
        id: 'c-done',
        event: 'complete',
        patch: { response: chatBody('done'), responseStatus: 200, requestId: 'req-done' },
      },
      {
        id: 'c-new',
        event: 'complete',
        patch: { response: chatBody('new'), responseStatus: 200, requestId: 'req-new' },
      },
      { id: 'v-succeeded', event: 'accept', patch: { taskId: 'task-v' } },
      {
        id: 'r-rejected',
        event: 'reject',
        patch: { reservedUsd: 0, lastError: { status: 400, message: '400 bad input' } },
      },
      { id: 'r-new', event: 'complete', patch: { response: { id: 'resp_1', output: [] }, responseStatus: 200 } },
      { id: 'c-uncertain', event: 'lose', patch: { lastError: { message: 'timeout' } } },
    ]);
    journal.apply([
      { id: 'c-done', event: 'store', patch: { outputPath: 'out/results.jsonl' } },
      { id: 'v-succeeded', event: 'finish', patch: { reservedUsd: 0, actualUsd: 0.4 } },
    ]);
  }

  it('writes every answered text item in manifest order, and returns only the ids newly on disk', async () => {
    const journal = tmp.open();
    seedMixed(journal);
    const out = join(tmp.dir(), 'out', 'job');

    const { written } = await writeResultsFile(journal.store, out);

    expect(written).toEqual(['c-new', 'r-new']);
    const expected = ['c-done', 'c-new', 'r-rejected', 'r-new']
      .map((id) => `${resultLine(journal.get(id)!)}\n`)
      .join('');
    expect(readFileSync(resultsPath(out), 'utf8')).toBe(expected);
    const lines = expected
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.custom_id)).toEqual(['c-done', 'c-new', 'r-rejected', 'r-new']);
    expect(lines[2].response.status_code).toBe(400);
    // No temp file is left behind.
    expect(readdirSync(out)).toEqual(['results.jsonl']);
  });

  it('rebuilds the whole file each time: no duplicate line, a stale file is replaced', async () => {
    const journal = tmp.open();
    seedMixed(journal);
    const out = join(tmp.dir(), 'out');
    await writeResultsFile(journal.store, out);
    writeFileSync(resultsPath(out), 'garbage from a crash\n');
    journal.apply([
      { id: 'c-new', event: 'store' },
      { id: 'r-new', event: 'store' },
    ]);

    expect((await writeResultsFile(journal.store, out)).written).toEqual([]);
    const lines = readFileSync(resultsPath(out), 'utf8').trimEnd().split('\n');
    expect(lines).toHaveLength(4);
    expect(new Set(lines.map((l) => JSON.parse(l).custom_id)).size).toBe(4);
    expect(readdirSync(out)).toEqual(['results.jsonl']);
  });

  it('reads the journal in pages: every line of a large rebuild is there once, in manifest order', async () => {
    const journal = tmp.open();
    const ids = Array.from({ length: 1234 }, (_, i) => `row-${i}`);
    ingest(
      journal,
      ids.map((id) => entry(id)),
    );
    journal.apply(ids.map((id) => submitChange(journal.get(id)!)));
    journal.apply(
      ids.map((id) => ({ id, event: 'complete' as const, patch: { response: chatBody(id), responseStatus: 200 } })),
    );
    const out = join(tmp.dir(), 'large');

    const { written } = await writeResultsFile(journal.store, out);

    expect(written).toEqual(ids);
    const lines = readFileSync(resultsPath(out), 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.custom_id)).toEqual(ids);
    expect(lines[1233].response.body.choices[0].message.content).toBe('row-1233');
  });

  it('one line per item in a final state, whatever its kind, in manifest order; nothing for items still open', async () => {
    const journal = tmp.open();
    ingest(journal, [
      entry('chat-ok'),
      entry('vid-ok', { kind: 'video' }),
      entry('vid-failed', { kind: 'video' }),
      entry('vid-running', { kind: 'video' }),
      entry('vid-succeeded', { kind: 'video' }),
      entry('chat-rejected'),
      entry('bad', { kind: 'invalid', state: 'invalid', lastError: { message: 'm.csv:7: bad' } }),
      entry('chat-pending'),
    ]);
    const sent = ['chat-ok', 'vid-ok', 'vid-failed', 'vid-running', 'vid-succeeded', 'chat-rejected'];
    journal.apply(sent.map((id) => submitChange(journal.get(id)!)));
    journal.apply([
      { id: 'chat-ok', event: 'complete', patch: { response: chatBody('ok'), responseStatus: 200 } },
      ...['vid-ok', 'vid-failed', 'vid-running', 'vid-succeeded'].map((id) => ({
        id,
        event: 'accept' as const,
        patch: { taskId: `task-${id}` },
      })),
      {
        id: 'chat-rejected',
        event: 'reject',
        patch: { reservedUsd: 0, lastError: { status: 404, code: 'model_not_found', message: 'no such model' } },
      },
    ]);
    journal.apply([
      { id: 'vid-ok', event: 'finish', patch: { finalResolution: '720p' } },
      { id: 'vid-failed', event: 'fail', patch: { lastError: { message: 'content policy' } } },
      { id: 'vid-running', event: 'progress' },
      { id: 'vid-succeeded', event: 'finish' },
    ]);
    journal.apply([
      { id: 'vid-ok', event: 'store', patch: { outputPath: 'out/vid-ok.mp4', sha256: 'f'.repeat(64), bytes: 10 } },
    ]);
    const out = join(tmp.dir(), 'final');

    const { written, prefix } = await writeResultsFile(journal.store, out);

    const lines = readFileSync(resultsPath(out), 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.custom_id)).toEqual(['chat-ok', 'vid-ok', 'vid-failed', 'chat-rejected', 'bad']);
    expect(new Set(lines.map((l) => l.id)).size).toBe(5);
    expect(lines[1].response.body).toMatchObject({
      task_id: 'task-vid-ok',
      status: 'SUCCESS',
      file: 'out/vid-ok.mp4',
      bytes: 10,
    });
    expect(lines[2]).toMatchObject({ response: null, error: { code: 'task_failed', message: 'content policy' } });
    expect(lines[3]).toMatchObject({ response: { status_code: 404 }, error: { code: 'model_not_found' } });
    expect(lines[4]).toMatchObject({ response: null, error: { code: 'invalid_row', message: 'm.csv:7: bad' } });
    expect(written).toEqual(['chat-ok']);
    // The prefix stops before the first item whose line is still to come (the running video).
    expect(prefix.seq).toBe(journal.get('vid-running')!.seq - 1);
  });

  it('writes an empty file when no text item is answered yet', async () => {
    const journal = tmp.open();
    ingest(journal, [entry('c1'), entry('v1', { kind: 'video' })]);
    const out = join(tmp.dir(), 'empty');
    expect((await writeResultsFile(journal.store, out)).written).toEqual([]);
    expect(existsSync(resultsPath(out))).toBe(true);
    expect(readFileSync(resultsPath(out), 'utf8')).toBe('');
  });
});

describe('writeResultsFile reusing the settled prefix of the previous file', () => {
  function seed(journal: ReturnType<typeof tmp.open>, ids: string[]): void {
    ingest(
      journal,
      ids.map((id) => entry(id)),
    );
    journal.apply(ids.map((id) => submitChange(journal.get(id)!)));
  }
  const complete = (journal: ReturnType<typeof tmp.open>, id: string, text = id) =>
    journal.apply([{ id, event: 'complete', patch: { response: chatBody(text), responseStatus: 200 } }]);

  it('gives the same file as a full rebuild, reading only the rows after the prefix', async () => {
    const journal = tmp.open();
    const ids = Array.from({ length: 1200 }, (_, i) => `r${i}`);
    seed(journal, ids);
    // Multi-byte text and a rejected line inside the prefix: its length is counted in bytes.
    ids
      .slice(0, 700)
      .filter((id) => id !== 'r100')
      .forEach((id, i) => complete(journal, id, i % 3 ? `héllo ✓ ${id}` : id));
    journal.apply([
      { id: 'r100', event: 'reject', patch: { reservedUsd: 0, lastError: { status: 400, message: 'bad' } } },
    ]);
    const out = join(tmp.dir(), 'out');
    const first = await writeResultsFile(journal.store, out);
    expect(first.prefix.seq).toBe(journal.get('r700')!.seq - 1); // r700 is still in flight
    ids.slice(700).forEach((id) => complete(journal, id));

    const reads: number[] = [];
    const rows = journal.results;
    const iterate = rows.iterate.bind(rows);
    rows.iterate = (after, limit) => (reads.push(after), iterate(after, limit));
    const second = await writeResultsFile(journal.store, out, first.prefix);
    const reused = readFileSync(resultsPath(out), 'utf8');
    rows.iterate = iterate;
    await writeResultsFile(journal.store, join(tmp.dir(), 'full'));

    expect(reused).toBe(readFileSync(resultsPath(join(tmp.dir(), 'full')), 'utf8'));
    expect(reads[0]).toBe(first.prefix.seq);
    expect(second.written).toEqual(ids.slice(700));
    expect(reused.trimEnd().split('\n')).toHaveLength(1200);
    expect(readdirSync(out)).toEqual(['results.jsonl']);
    // Appended in place (issue 11: each line written about once): the same file, not a copy renamed over it.
    expect(statSync(resultsPath(out)).ino).toBe(first.prefix.file.ino);
    expect(second.prefix.bytes).toBe(Buffer.byteLength(reused));
  });

  it("rewrites the lines after the prefix in place: a line past an open item, then the open item's own, in manifest order", async () => {
    const journal = tmp.open();
    seed(journal, ['a', 'b', 'c', 'd']);
    complete(journal, 'a');
    complete(journal, 'c'); // past b, still in flight
    const out = join(tmp.dir(), 'out');
    const first = await writeResultsFile(journal.store, out);
    expect(first.prefix.seq).toBe(journal.get('a')!.seq);
    complete(journal, 'b');
    complete(journal, 'd');

    const second = await writeResultsFile(journal.store, out, first.prefix);

    const lines = readFileSync(resultsPath(out), 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l).custom_id);
    expect(lines).toEqual(['a', 'b', 'c', 'd']);
    expect(second.written).toEqual(['b', 'c', 'd']);
    expect(statSync(resultsPath(out)).ino).toBe(first.prefix.file.ino);
  });

  it('grows the prefix over rows settled while it wrote, up to the first row whose line the file lacks', async () => {
    const journal = tmp.open();
    seed(journal, ['a', 'b', 'c', 'd', 'e']);
    for (const id of ['a', 'b', 'c', 'd']) complete(journal, id); // e still in flight
    const store = journal.store;
    const seqOf = (id: string) => journal.get(id)!.seq;
    // The journal as the rebuild saw it while writing: b in flight when it began, c when the reader passed it.
    let asked = 0;
    let hideC = true;
    const racing = Object.assign(Object.create(store) as typeof store, {
      firstOpenSeq: async () => {
        if (++asked === 1) return seqOf('b');
        hideC = false; // after the write: the journal as it is
        return store.firstOpenSeq();
      },
      resultRows: async (after: number, limit: number, maxBytes: number) =>
        (await store.resultRows(after, limit, maxBytes)).filter((r) => !(hideC && r.id === 'c')),
    });
    const out = join(tmp.dir(), 'out');

    const first = await writeResultsFile(racing, out);

    const text = readFileSync(resultsPath(out), 'utf8');
    expect(
      text
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l).custom_id),
    ).toEqual(['a', 'b', 'd']);
    // Begun at a, the prefix now covers b (settled meanwhile, its line written) and stops before c.
    expect(first.prefix.seq).toBe(seqOf('b'));
    expect(first.prefix.bytes).toBe(Buffer.byteLength(text.split('\n').slice(0, 2).join('\n') + '\n'));

    complete(journal, 'e');
    const second = await writeResultsFile(store, out, first.prefix);
    expect(
      readFileSync(resultsPath(out), 'utf8')
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l).custom_id),
    ).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(second.prefix.bytes).toBe(statSync(resultsPath(out)).size);
  });

  it('an append that fails leaves the settled prefix, never a torn line, and throws', async () => {
    const journal = tmp.open();
    seed(journal, ['a', 'b', 'c']);
    complete(journal, 'a');
    const out = join(tmp.dir(), 'out');
    const store = journal.store;
    const first = await writeResultsFile(store, out);
    const prefix = readFileSync(resultsPath(out), 'utf8');
    complete(journal, 'b');
    complete(journal, 'c');
    let pages = 0;
    const failing = Object.assign(Object.create(store) as typeof store, {
      resultRows: async (after: number, limit: number, maxBytes: number) => {
        if (pages++ > 0) throw Object.assign(new Error('no space left on device'), { code: 'ENOSPC' });
        return store.resultRows(after, 1, maxBytes); // one line written, then the failure
      },
    });

    await expect(writeResultsFile(failing, out, first.prefix)).rejects.toMatchObject({ code: 'ENOSPC' });

    expect(readFileSync(resultsPath(out), 'utf8')).toBe(prefix);
    expect(
      prefix
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l).custom_id),
    ).toEqual(['a']);
  });

  it('does not reuse a prefix one of whose items is open again (sent again by retry): its old line goes', async () => {
    const journal = tmp.open();
    seed(journal, ['a', 'b', 'c']);
    complete(journal, 'a');
    journal.apply([
      { id: 'b', event: 'reject', patch: { reservedUsd: 0, lastError: { status: 400, message: 'bad' } } },
    ]);
    complete(journal, 'c');
    const out = join(tmp.dir(), 'out');
    const first = await writeResultsFile(journal.store, out);
    expect(first.prefix.seq).toBe(journal.get('c')!.seq);
    journal.apply([requeueChange(journal.get('b')!)]);

    await writeResultsFile(journal.store, out, first.prefix);

    expect(
      readFileSync(resultsPath(out), 'utf8')
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l).custom_id),
    ).toEqual(['a', 'c']);
  });

  it('the prefix ends at the last line in the file: rows ingested later get their lines', async () => {
    const journal = tmp.open();
    seed(journal, ['a', 'b']);
    complete(journal, 'a');
    complete(journal, 'b');
    const out = join(tmp.dir(), 'out');
    const first = await writeResultsFile(journal.store, out);
    expect(first.prefix.seq).toBe(journal.get('b')!.seq); // not "everything", though nothing is open
    seed(journal, ['c']);
    complete(journal, 'c');

    const second = await writeResultsFile(journal.store, out, first.prefix);

    expect(
      readFileSync(resultsPath(out), 'utf8')
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l).custom_id),
    ).toEqual(['a', 'b', 'c']);
    expect(second.written).toEqual(['c']);
    expect(statSync(resultsPath(out)).ino).toBe(first.prefix.file.ino);
  });

  it('rebuilds from the journal alone when the file was changed by someone else', async () => {
    const journal = tmp.open();
    seed(journal, ['a', 'b', 'c']);
    complete(journal, 'a');
    complete(journal, 'b');
    const out = join(tmp.dir(), 'out');
    const first = await writeResultsFile(journal.store, out);
    writeFileSync(resultsPath(out), 'edited by hand\n');
    complete(journal, 'c');

    await writeResultsFile(journal.store, out, first.prefix);

    const lines = readFileSync(resultsPath(out), 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l).custom_id);
    expect(lines).toEqual(['a', 'b', 'c']);
  });
});
