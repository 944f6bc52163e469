// The Files API beyond uploads: a batch's output file is streamed from the journal as it is read (never
// held whole: the server's peak memory while it sends a file tens of MB long barely moves), with its exact
// length and Range; the list shows derived files (output, error, videos) with the uploads, newest first and
// paged; a derived file can be deleted, as OpenAI lets a client delete its output.
import { readFileSync, writeFileSync } from 'node:fs';
import { fetch as freshFetch } from 'undici';
import { describe, expect, it } from 'vitest';
import { BUILT } from '../../helpers/cli.js';
import { startSim } from '../../helpers/sim.js';
import { workspace } from '../../helpers/workspace.js';
import {
  batchEnd,
  chatLine,
  client,
  filesOf,
  startServe,
  submitBatch,
  TOKEN_A,
  TOKEN_B,
  videoLine,
} from '../../helpers/serve.js';

/** The process's peak resident memory (VmHWM) since its counter was last reset, in bytes. */
function peakRss(pid: number): number {
  const line = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))!;
  return Number(line[1]) * 1024;
}

/** The process's resident memory now, in bytes. */
function rss(pid: number): number {
  return Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) * 1024;
}

/** Resets the process's peak resident memory to what it holds now (Linux: clear_refs 5). */
function resetPeak(pid: number): void {
  writeFileSync(`/proc/${pid}/clear_refs`, '5');
}

const canMeasure = (() => {
  try {
    resetPeak(process.pid);
    return peakRss(process.pid) > 0;
  } catch {
    return false;
  }
})();

describe.skipIf(!BUILT)('gbatch serve: derived files', () => {
  it.skipIf(!canMeasure)(
    'streams a large output file from the journal: exact length, Range, flat memory',
    async () => {
      const sim = await startSim();
      const ws = workspace('gbatch-serve-');
      const options = { data: ws.path('data'), gateway: sim.baseUrl, args: ['--concurrency', '16'] };
      const runner = await startServe(options);
      // 128 choices per answer, about 26 kB a row: an output file of some 50 MB.
      const rows = 2000;
      const ids = Array.from({ length: rows }, (_, i) => `r${i}`);
      const created = await submitBatch(
        client(runner),
        ws.path('in.jsonl'),
        ids.map((id) => chatLine(id, `long answer ${id}`, { n: 128 })),
      );
      expect(await batchEnd(runner, created.id)).toBe('completed');
      await runner.stop();
      // The file is served by a server with a heap of 64 MB: room for it and a page of rows, not for the
      // file twice over. Its young generation is kept at 1 MB: left to grow with the allocation rate, V8's
      // headroom for short-lived strings decides the peak (10 to 44 MB from one run to the next of the same
      // server), not what the server holds. A server that made the file whole grows by twice its size.
      const server = await startServe({
        ...options,
        env: { NODE_OPTIONS: '--max-old-space-size=64 --max-semi-space-size=1' },
      });
      const openai = client(server);
      const batch = await openai.batches.retrieve(created.id);
      const meta = await openai.files.retrieve(batch.output_file_id!);
      expect(meta.bytes).toBeGreaterThan(40 * 1024 * 1024);

      const pid = server.child.pid!;
      resetPeak(pid);
      const before = rss(pid);
      const response = await openai.files.content(batch.output_file_id!);
      expect(response.headers.get('content-length')).toBe(String(meta.bytes));
      const received: Buffer[] = [];
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>)
        received.push(Buffer.from(chunk));
      const whole = Buffer.concat(received);
      expect(whole.length).toBe(meta.bytes);
      const lines = whole.toString('utf8').split('\n');
      expect(lines.pop()).toBe('');
      expect(lines.map((l) => (JSON.parse(l) as { custom_id: string }).custom_id)).toEqual(ids);
      const growth = peakRss(pid) - before;
      // A file made whole in memory costs the server at least its own size (the lines, then the joined
      // buffer: more than the heap holds); streamed, a fraction of it.
      expect(growth).toBeLessThan(meta.bytes / 3);

      // A Range deep in the file: the same bytes as the whole file's. Asked through the undici package, not the
      // global fetch the SDK used: Node 20's bundled undici reuses an idle connection without first reading a close
      // the server sent while the checks above held this thread (longer than serve's keep-alive on a loaded host),
      // and fails with "other side closed"; the package's undici reads pending closes before reusing a connection.
      const start = Math.floor(meta.bytes / 2);
      const part = await freshFetch(`${server.url}/files/${batch.output_file_id}/content`, {
        headers: { authorization: `Bearer ${TOKEN_A}`, range: `bytes=${start}-${start + 999}` },
      });
      expect(part.status).toBe(206);
      expect(part.headers.get('content-range')).toBe(`bytes ${start}-${start + 999}/${meta.bytes}`);
      expect(Buffer.from(await part.arrayBuffer()).equals(whole.subarray(start, start + 1000))).toBe(true);
    },
    90_000,
  );

  it('lists the output, error and video files of final batches with the uploads, newest first, paged', async () => {
    const sim = await startSim();
    const ws = workspace('gbatch-serve-');
    const server = await startServe({ data: ws.path('data'), gateway: sim.baseUrl, args: ['--budget', '5'] });
    const openai = client(server);
    // A chat batch the server's --budget holds one request of two of (chat-large at 600,000 tokens may bill $6): an
    // output and an error file.
    const chats = await submitBatch(openai, ws.path('chats.jsonl'), [
      chatLine('ok', 'hello'),
      chatLine('over', 'hello', { model: 'chat-large', max_tokens: 600_000 }),
    ]);
    expect(await batchEnd(server, chats.id)).toBe('completed');
    const videos = await submitBatch(openai, ws.path('videos.jsonl'), [videoLine('clip', 'a red kite')], {
      endpoint: '/v1/video/generations',
    });
    expect(await batchEnd(server, videos.id)).toBe('completed');
    const chatBatch = await openai.batches.retrieve(chats.id);
    const videoBatch = await openai.batches.retrieve(videos.id);
    const { output: videoOutput } = await filesOf(openai, videoBatch);
    const videoFileId = (videoOutput[0]!.response as { body: { file_id: string } }).body.file_id;

    const all = [];
    for await (const file of openai.files.list({ limit: 2 })) all.push(file);
    const ids = all.map((f) => f.id);
    // Two uploads, the chat batch's output and error files, the video batch's output file and its video.
    expect(ids).toHaveLength(6);
    expect(new Set(ids)).toEqual(
      new Set([
        chatBatch.input_file_id,
        chatBatch.output_file_id,
        chatBatch.error_file_id,
        videoBatch.input_file_id,
        videoBatch.output_file_id,
        videoFileId,
      ]),
    );
    const created = all.map((f) => f.created_at);
    expect(created).toEqual([...created].sort((a, b) => b - a));
    for (const file of all) {
      const uploaded = file.id === chatBatch.input_file_id || file.id === videoBatch.input_file_id;
      expect(file.purpose).toBe(uploaded ? 'batch' : 'batch_output');
      // Each listed object is the one retrieve gives, its length that of its content.
      expect(await openai.files.retrieve(file.id)).toEqual(file);
      const content = Buffer.from(await (await openai.files.content(file.id)).arrayBuffer());
      expect(content.length).toBe(file.bytes);
    }
    const first = await openai.files.list({ limit: 4 });
    expect(first.has_more).toBe(true);
    const rest = await openai.files.list({ limit: 4, after: first.data.at(-1)!.id });
    expect(rest.has_more).toBe(false);
    expect([...first.data, ...rest.data].map((f) => f.id)).toEqual(ids);
    // Another token sees none of them.
    expect((await client(server, TOKEN_B).files.list()).data).toEqual([]);

    // Deleting a derived file, as OpenAI allows for an output file: gone from retrieve, content and the list;
    // a video's bytes leave the disk. The batch keeps the id.
    expect(await openai.files.delete(chatBatch.output_file_id!)).toMatchObject({ deleted: true });
    expect(await openai.files.delete(videoFileId)).toMatchObject({ deleted: true });
    for (const id of [chatBatch.output_file_id!, videoFileId]) {
      await expect(openai.files.retrieve(id)).rejects.toMatchObject({ status: 404 });
      await expect(openai.files.content(id)).rejects.toMatchObject({ status: 404 });
      await expect(openai.files.delete(id)).rejects.toMatchObject({ status: 404 });
    }
    const after = (await openai.files.list()).data.map((f) => f.id);
    expect(after).toEqual(ids.filter((id) => id !== chatBatch.output_file_id && id !== videoFileId));
    expect((await openai.batches.retrieve(chats.id)).output_file_id).toBe(chatBatch.output_file_id);
    // Another token cannot delete what it cannot see.
    await expect(client(server, TOKEN_B).files.delete(chatBatch.error_file_id!)).rejects.toMatchObject({
      status: 404,
    });
  });
});
