// `gbatch ui`'s live streams against a real server over a real journal (SQLite files, and PostgreSQL):
// however many pages watch a job, its journal is read once per --refresh-interval (the server's own
// counter, on /metrics); one sign-in (a bearer token or a session) holds 8 streams at once and the server
// 256, each refused past it with a 429 that says so; a closed stream gives its place back.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { LIVE_STREAMS_IN_ALL, LIVE_STREAMS_PER_VIEWER } from '../../../src/core/live-stream-caps.js';
import { BUILT, gatewayEnv, runCli } from '../../helpers/cli.js';
import { chatRow, writeJsonl } from '../../helpers/manifests.js';
import { pgAvailable, usePgSchema } from '../../helpers/postgres.js';
import { parseExposition } from '../../helpers/prometheus-text.js';
import { KEY, launchSim } from '../../helpers/sim.js';
import { bearer, sessionCookie, startUiChild, UI_TOKEN, UI_TOKEN_B, type UiChild } from '../../helpers/ui.js';
import { createWorkspace } from '../../helpers/workspace.js';

interface Stream {
  status: number;
  /** The refusal's text (a stream that opened has none). */
  refusal: string;
  /** Resolves with the data of the first `figures` event. */
  firstFrame: Promise<string>;
  close(): void;
}

describe.skipIf(!BUILT)('gbatch ui: live streams are shared and capped (SQLite journals)', () => {
  liveStreams(() => []);
});

describe.skipIf(!BUILT || !pgAvailable())('gbatch ui: live streams are shared and capped (PostgreSQL)', () => {
  const db = usePgSchema('gbatch_ui_live');
  liveStreams(() => ['--journal', db.url()]);
});

/** The cases, over the journal `journal()` names (none: SQLite files in state/). */
function liveStreams(journal: () => string[]): void {
  const ws = createWorkspace('gbatch-ui-live-');
  let ui: UiChild;
  const open: Stream[] = [];

  beforeAll(async () => {
    const sim = await launchSim({ accounts: [{ key: KEY, balanceUsd: 100, models: ['chat-small'] }] });
    try {
      writeJsonl(ws.path('alpha.jsonl'), [chatRow('q-0', 'a question'), chatRow('q-1', 'another')]);
      const run = await runCli(['run', 'alpha.jsonl', '--budget', '1', '--quiet', ...journal()], {
        cwd: ws.dir,
        env: gatewayEnv(sim.baseUrl, KEY),
      });
      expect(run.code, run.stderr).toBe(0);
    } finally {
      await sim.close();
    }
    // An hour between two reads: every read the counter shows was made for a stream that opened.
    const source = journal().length ? journal() : ['--state-dir', ws.path('state')];
    ui = await startUiChild([...source, '--refresh-interval', '3600']);
  }, 60_000);
  afterAll(async () => {
    for (const stream of open) stream.close();
    await ui?.stop();
    ws.remove();
  });

  const stream = async (headers: Record<string, string>): Promise<Stream> => {
    const abort = new AbortController();
    const res = await fetch(`${ui.url}jobs/alpha/live`, { headers, signal: abort.signal });
    const refusal = res.ok ? '' : await res.text();
    const firstFrame = (async () => {
      if (!res.ok) throw new Error(`no stream: ${res.status}`);
      const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
      let text = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) throw new Error('the stream ended before its first frame');
        text += value;
        const frame = /event: figures\ndata: (.*)\n/.exec(text);
        if (frame) return frame[1]!;
      }
    })();
    firstFrame.catch(() => {});
    const opened = { status: res.status, refusal, firstFrame, close: () => abort.abort() };
    open.push(opened);
    return opened;
  };
  const metrics = async () => parseExposition(await (await fetch(`${ui.url}metrics`, { headers: bearer() })).text());
  const streamsOpen = async () => (await metrics()).value('gbatch_ui_live_streams');
  const signIn = async (token: string): Promise<Record<string, string>> => {
    const res = await fetch(`${ui.url}login`, {
      method: 'POST',
      body: new URLSearchParams({ token, next: '/' }),
      redirect: 'manual',
    });
    expect(res.status).toBe(303);
    return { cookie: sessionCookie(res) };
  };
  const closeAll = async () => {
    for (const s of open.splice(0)) s.close();
    await expect.poll(streamsOpen, { timeout: 10_000 }).toBe(0);
  };

  test('one read of the job for all its streams; a token past 8 streams gets 429, another token does not', async () => {
    const mine = await Promise.all(Array.from({ length: LIVE_STREAMS_PER_VIEWER }, () => stream(bearer())));
    expect(mine.map((s) => s.status)).toEqual(Array(LIVE_STREAMS_PER_VIEWER).fill(200));
    const frames = await Promise.all(mine.map((s) => s.firstFrame));
    expect(new Set(frames).size).toBe(1);
    expect(Object.keys(JSON.parse(frames[0]!) as object)).toContain('live-headline');
    const ninth = await stream(bearer());
    expect(ninth.status).toBe(429);
    expect(ninth.refusal).toBe(
      `too many live streams: one sign-in holds ${LIVE_STREAMS_PER_VIEWER} at once; close a job page first`,
    );
    const other = await stream(bearer(UI_TOKEN_B));
    expect(other.status).toBe(200);
    await other.firstFrame;
    let seen = await metrics();
    expect(seen.value('gbatch_ui_live_streams')).toBe(LIVE_STREAMS_PER_VIEWER + 1);
    expect(seen.value('gbatch_ui_live_reads_total')).toBe(1);

    // A page closed: its place is free again, and the stream that takes it reads nothing new.
    mine[0]!.close();
    await expect.poll(streamsOpen, { timeout: 10_000 }).toBe(LIVE_STREAMS_PER_VIEWER);
    const again = await stream(bearer());
    expect(again.status).toBe(200);
    await again.firstFrame;
    seen = await metrics();
    expect(seen.value('gbatch_ui_live_streams')).toBe(LIVE_STREAMS_PER_VIEWER + 1);
    expect(seen.value('gbatch_ui_live_reads_total')).toBe(1);
    await closeAll();
  }, 60_000);

  test('the server holds 256 streams in all: the next is refused 429 whoever asks, until one closes', async () => {
    const sessions = await Promise.all(
      Array.from({ length: LIVE_STREAMS_IN_ALL / LIVE_STREAMS_PER_VIEWER }, (_, i) =>
        signIn(i % 2 ? UI_TOKEN : UI_TOKEN_B),
      ),
    );
    // Each session has its own places, whoever signed it in.
    const all = await Promise.all(
      sessions.flatMap((cookie) => Array.from({ length: LIVE_STREAMS_PER_VIEWER }, () => stream(cookie))),
    );
    expect(all.filter((s) => s.status === 200)).toHaveLength(LIVE_STREAMS_IN_ALL);
    await Promise.all(all.map((s) => s.firstFrame));

    const fresh = await signIn(UI_TOKEN);
    const refused = await stream(fresh);
    expect(refused.status).toBe(429);
    expect(refused.refusal).toBe(
      `too many live streams: this server holds ${LIVE_STREAMS_IN_ALL} at once; close a job page or try again later`,
    );
    expect((await stream(bearer(UI_TOKEN_B))).status).toBe(429);
    expect(await streamsOpen()).toBe(LIVE_STREAMS_IN_ALL);
    // The pages themselves still load.
    expect((await fetch(`${ui.url}jobs/alpha`, { headers: fresh })).status).toBe(200);

    all[0]!.close();
    await expect.poll(streamsOpen, { timeout: 10_000 }).toBe(LIVE_STREAMS_IN_ALL - 1);
    const taken = await stream(fresh);
    expect(taken.status).toBe(200);
    await taken.firstFrame;
    await closeAll();
    // One read for the first test's streams, one for this test's 257: the feed stopped in between.
    expect((await metrics()).value('gbatch_ui_live_reads_total')).toBe(2);
  }, 120_000);
}
