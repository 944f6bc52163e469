// Issue 10, item 7: an --out that cannot be written is refused before anything is sent; a disk that
// fills up mid-run stops the run in order (exit 75), keeps every answer, leaves no temp file, and a
// rerun with room finishes without sending anything again. Real file systems: tmpfs mounts (root).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { DEFAULTS, sendJson } from '../../helpers/hostile-gateway.js';
import { BUILT, gatewayEnv, runCli } from '../../helpers/cli.js';
import { chatRow, videoRow, writeJsonl } from '../../helpers/manifests.js';
import { CAN_MOUNT, mountTmpfs } from '../../helpers/tmpfs.js';
import { filesUnder, workspace } from '../../helpers/workspace.js';
import { hostileGateway } from '../../helpers/refusal.js';
import { openSyncJournal } from '../../helpers/journal-raw.js';

const oneLine = (stderr: string, pattern: RegExp): string[] => stderr.split('\n').filter((l) => pattern.test(l));

test.skipIf(!BUILT)('--out whose parent is a file: exit 2, one line naming it, zero requests, no journal', async () => {
  const ws = workspace();
  const gw = await hostileGateway();
  writeFileSync(ws.path('afile'), 'not a directory\n');
  const manifest = writeJsonl(ws.path('rows.jsonl'), [chatRow('c1', 'hi')]);
  const run = await runCli(['run', manifest, '--state', ws.state, '--out', ws.path('afile', 'out')], {
    env: gatewayEnv(gw.baseUrl, gw.key),
  });
  expect(run.code, run.stderr).toBe(2);
  expect(run.stderr).toMatch(/afile\/out: cannot write --out there: a part of the path is not a directory \(ENOTDIR\)/);
  expect(run.stderr).not.toMatch(/internal error|Please report|\n\s+at /);
  expect(gw.requests).toHaveLength(0);
  expect(existsSync(ws.state)).toBe(false);
  expect(existsSync(ws.path('state'))).toBe(false);
});

test.skipIf(!BUILT || !CAN_MOUNT)(
  '--out on a read-only file system: exit 2 before any request, nothing left behind',
  async () => {
    const ws = workspace();
    const gw = await hostileGateway();
    const ro = mountTmpfs('1m', 'ro');
    const manifest = writeJsonl(ws.path('rows.jsonl'), [chatRow('c1', 'hi'), videoRow('v1', 'a comet')]);
    const run = await runCli(['run', manifest, '--state', ws.state, '--out', join(ro.dir, 'out')], {
      env: gatewayEnv(gw.baseUrl, gw.key),
    });
    expect(run.code, run.stderr).toBe(2);
    expect(oneLine(run.stderr, /read-only file system \(EROFS\)/)).toHaveLength(1);
    expect(run.stderr).not.toMatch(/internal error|\n\s+at /);
    expect(gw.requests).toHaveLength(0);
    expect(existsSync(ws.state)).toBe(false);
  },
);

test.skipIf(!BUILT || !CAN_MOUNT)(
  'the disk fills up mid-run: exit 75, every answered row kept, no .part, a rerun with room sends nothing twice',
  async () => {
    const ws = workspace();
    // 300 KB videos and 100 KB chat answers into a 1 MB file system: the third or fourth output fills it.
    const gw = await hostileGateway({
      videoBytes: 300_000,
      routes: {
        chat: (req, res, g) => {
          DEFAULTS.chat(
            req,
            {
              writeHead() {
                return this;
              },
              end() {},
            } as never,
            g,
          ); // bill it as the default does
          sendJson(res, 200, {
            id: `chatcmpl-${req.json.messages[0].content}`,
            object: 'chat.completion',
            model: req.json.model,
            choices: [
              { index: 0, message: { role: 'assistant', content: 'x'.repeat(100_000) }, finish_reason: 'stop' },
            ],
            usage: { prompt_tokens: 10, completion_tokens: 16, total_tokens: 26 },
          });
        },
      },
    });
    const disk = mountTmpfs('1m');
    const out = join(disk.dir, 'out');
    const rows = Array.from({ length: 16 }, (_, i) =>
      i % 2 === 0 ? videoRow(`v${i}`, `clip ${i}`) : chatRow(`c${i}`, `question ${i}`),
    );
    const manifest = writeJsonl(ws.path('rows.jsonl'), rows);
    // --rpm 300 paces every request (5 a second) so the disk fills while rows are still to be sent;
    // --poll-rpm 300 lets polls and downloads take all of it, as quick to fill the disk as they can.
    const args = [
      'run',
      manifest,
      '--state',
      ws.state,
      '--out',
      out,
      '--poll-interval',
      '0.02',
      '--concurrency',
      '2',
      '--rpm',
      '300',
      '--poll-rpm',
      '300',
    ];
    const env = gatewayEnv(gw.baseUrl, gw.key);

    const first = await runCli(args, { env });

    expect(first.code, first.stderr).toBe(75);
    expect(first.stderr).toMatch(/no space left on device \(ENOSPC\)/);
    expect(first.stdout).toMatch(/Stopped: cannot write .*no space left on device \(ENOSPC\)/);
    expect(first.stderr).not.toMatch(/internal error|Unhandled|\n\s+at /);
    expect(filesUnder(out).filter((f) => f.endsWith('.part'))).toEqual([]);
    const journal = openSyncJournal(ws.state, { readonly: true });
    const byId = new Map(rows.map((r) => [r.id as string, journal.get(r.id as string)!]));
    journal.close();
    const states = [...byId.values()].map((i) => i.state);
    expect(states).not.toContain('submitting');
    expect(states).not.toContain('uncertain');
    expect(states).toContain('pending'); // the stop came before every row was sent
    // Every row the gateway answered is kept: chat answers succeeded (their bodies in the journal), videos succeeded or
    // on disk.
    const sentPrompts = new Set(
      gw.requests.filter((r) => r.method === 'POST').map((r) => r.json.prompt ?? r.json.messages[0].content),
    );
    for (const row of rows) {
      const prompt = (row.prompt ?? (row.messages as Array<{ content: string }>)[0]!.content) as string;
      const item = byId.get(row.id as string)!;
      if (sentPrompts.has(prompt))
        expect(['succeeded', 'downloaded', 'submitted', 'running'], `${item.id}`).toContain(item.state);
      else expect(item.state, item.id).toBe('pending');
      if (item.kind === 'chat' && item.state === 'succeeded') expect(item.response).not.toBeNull();
    }
    const postsBefore = gw.requests.filter((r) => r.method === 'POST').length;

    disk.remount('size=64m');
    const second = await runCli(args, { env });

    expect(second.code, second.stderr).toBe(0);
    const posts = gw.requests.filter((r) => r.method === 'POST');
    const perPrompt = new Map<string, number>();
    for (const r of posts) {
      const prompt = r.json.prompt ?? r.json.messages[0].content;
      perPrompt.set(prompt, (perPrompt.get(prompt) ?? 0) + 1);
    }
    expect([...perPrompt.values()].every((n) => n === 1)).toBe(true); // nothing sent twice
    expect(posts.length - postsBefore).toBe(rows.length - sentPrompts.size);
    expect(filesUnder(out).filter((f) => f.endsWith('.part'))).toEqual([]);
  },
);

test.skipIf(!BUILT || !CAN_MOUNT)(
  'results.jsonl cannot be rebuilt (disk full) while answers are in flight: they are journaled, exit 75, a rerun writes them',
  async () => {
    const ws = workspace();
    const gw = await hostileGateway({
      routes: {
        chat: (req, res, g) => {
          DEFAULTS.chat(
            req,
            {
              writeHead() {
                return this;
              },
              end() {},
            } as never,
            g,
          );
          // Slow answers: the rebuild that starts once every row is claimed runs while two are in flight.
          setTimeout(
            () =>
              sendJson(res, 200, {
                id: `chatcmpl-${req.json.messages[0].content}`,
                object: 'chat.completion',
                model: req.json.model,
                choices: [
                  { index: 0, message: { role: 'assistant', content: 'y'.repeat(100_000) }, finish_reason: 'stop' },
                ],
                usage: { prompt_tokens: 10, completion_tokens: 16, total_tokens: 26 },
              }),
            150,
          );
        },
      },
    });
    const disk = mountTmpfs('512k');
    const out = join(disk.dir, 'out');
    const rows = Array.from({ length: 10 }, (_, i) => chatRow(`c${i}`, `question ${i}`));
    const manifest = writeJsonl(ws.path('rows.jsonl'), rows);
    const args = ['run', manifest, '--state', ws.state, '--out', out, '--concurrency', '2'];
    const env = gatewayEnv(gw.baseUrl, gw.key);

    const first = await runCli(args, { env });

    expect(first.code, first.stderr).toBe(75);
    expect(oneLine(first.stderr, /results\.jsonl: no space left on device \(ENOSPC\)/)).toHaveLength(1);
    expect(first.stderr).not.toMatch(/internal error|Unhandled|\n\s+at /);
    expect(filesUnder(out).filter((f) => f.endsWith('.part'))).toEqual([]);
    const journal = openSyncJournal(ws.state, { readonly: true });
    const items = rows.map((r) => journal.get(r.id as string)!);
    journal.close();
    // Every row the gateway answered is `succeeded` with its body (never submitting, never uncertain);
    // the rows not yet sent when the write failed stay pending.
    const sent = new Set(gw.requests.filter((r) => r.method === 'POST').map((r) => r.json.messages[0].content));
    expect(sent.size).toBeGreaterThan(0);
    for (const [i, item] of items.entries()) {
      if (sent.has(`question ${i}`)) {
        expect(item.state, item.id).toBe('succeeded');
        expect(item.response).not.toBeNull();
      } else {
        expect(item.state, item.id).toBe('pending');
      }
    }

    disk.remount('size=16m');
    const second = await runCli(args, { env });
    expect(second.code, second.stderr).toBe(0);
    expect(gw.count('POST', '/v1/chat/completions')).toBe(rows.length); // each row sent once in all
    expect(readFileSync(join(out, 'results.jsonl'), 'utf8').trimEnd().split('\n')).toHaveLength(rows.length);
  },
);
