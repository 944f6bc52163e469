// Issue 10 item 14: a manifest that is not UTF-8 (a Latin-1 / Windows-1252 CSV from a spreadsheet, é as
// the one byte 0xE9) has those rows refused with file:line, the field and an encoding hint, through the
// invalid-row path: plan exits 2, run refuses and sends nothing (or, with --skip-invalid, sends only the
// valid rows). Both readers: in this thread, and the worker thread for manifests over 8 MiB (here the
// CLI's threshold is lowered to 3 MiB), where the test also puts characters across the reader's 256 KiB
// chunk boundaries. A U+FFFD the file holds as UTF-8 (EF BF BD) is valid.

import { writeFileSync } from 'node:fs';
import { expect, onTestFinished, test } from 'vitest';
import { startHostileGateway } from '../../helpers/hostile-gateway.js';
import { BUILT, gatewayEnv, runCli, scanWorkerEnv, stdoutJson } from '../../helpers/cli.js';
import { readJournal } from '../../helpers/journal-read.js';
import { workspace } from '../../helpers/workspace.js';

const HINT = 'not valid UTF-8 (byte 0xE9); save the file as UTF-8 — it looks like Latin-1/Windows-1252';
const latin1 = (text: string): Buffer => Buffer.from(text, 'latin1');
const utf8 = (text: string): Buffer => Buffer.from(text, 'utf8');

const csvLine = (id: Buffer | string, prompt: Buffer | string): Buffer =>
  Buffer.concat([
    typeof id === 'string' ? utf8(id) : id,
    utf8(',chat,chat-small,'),
    typeof prompt === 'string' ? utf8(prompt) : prompt,
    utf8('\n'),
  ]);
const jsonlLine = (id: Buffer | string, prompt: Buffer | string): Buffer =>
  Buffer.concat([
    utf8('{"id":"'),
    typeof id === 'string' ? utf8(id) : id,
    utf8('","kind":"chat","model":"chat-small","max_tokens":8,"messages":[{"role":"user","content":"'),
    typeof prompt === 'string' ? utf8(prompt) : prompt,
    utf8('"}]}\n'),
  ]);

test.skipIf(!BUILT)(
  'small manifests (read in this thread): Latin-1 rows refused by plan and run; --skip-invalid sends only the valid rows',
  async () => {
    const ws = workspace();
    const gw = await startHostileGateway();
    onTestFinished(() => gw.close());
    const csv = ws.path('latin1.csv');
    writeFileSync(
      csv,
      Buffer.concat([
        utf8('id,kind,model,prompt\n'),
        csvLine('r1', latin1("Un café s'il vous plaît")),
        csvLine('r2', 'A replacement character \ufffd written as UTF-8'),
        csvLine(latin1('r3-é'), 'id with a Latin-1 byte'),
        csvLine('r4', Buffer.concat([utf8('"two\nlines, '), latin1('naïve'), utf8('"')])),
        csvLine('r5', 'déjà vu in UTF-8'),
      ]),
    );
    const jsonl = ws.path('latin1.jsonl');
    writeFileSync(
      jsonl,
      Buffer.concat([
        jsonlLine('j1', latin1('Crème brûlée')),
        jsonlLine('j2', 'A replacement character \ufffd written as UTF-8'),
        utf8('\r\n'),
        jsonlLine('j3', 'Ünïcödé in UTF-8'),
        jsonlLine('j4', latin1('façade')).subarray(0, -1), // the last line, without its line break
      ]),
    );

    const planCsv = await runCli(['plan', csv]);
    expect(planCsv.code).toBe(2);
    expect(planCsv.stderr).toContain(`${csv}:2 row 'r1' field 'prompt': ${HINT}`);
    expect(planCsv.stderr).toContain(`${csv}:4 row 'r3-\ufffd' field 'id': ${HINT}`);
    expect(planCsv.stderr).toContain(`${csv}:5 row 'r4' field 'prompt': not valid UTF-8 (byte 0xEF)`);
    expect(planCsv.stderr.match(/not valid UTF-8/g)).toHaveLength(3);
    expect(planCsv.stdout).toMatch(/3 invalid/);

    const planJsonl = stdoutJson(await runCli(['plan', jsonl, '--json']));
    expect(planJsonl).toMatchObject({ rows: 4, valid: 2, invalid: 2 });
    expect(planJsonl.errors).toEqual([
      `${jsonl}:1 row 'j1' field 'messages': ${HINT.replace('0xE9', '0xE8')}`,
      `${jsonl}:5 row 'j4' field 'messages': ${HINT.replace('0xE9', '0xE7')}`,
    ]);

    const env = gatewayEnv(gw.baseUrl, gw.key);
    const refused = await runCli(['run', jsonl, '--state', ws.state, '--out', ws.out], { env });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`${jsonl}:1 row 'j1' field 'messages': not valid UTF-8`);
    expect(refused.stderr).toMatch(/nothing was sent/);
    expect(gw.requests).toHaveLength(0);

    const skipped = await runCli(
      ['run', csv, '--skip-invalid', '--state', ws.path('state', 'csv.db'), '--out', ws.out, '--poll-interval', '0.02'],
      { env },
    );
    expect(skipped.code, skipped.stderr).toBe(1);
    const sent = gw.requests.filter((r) => r.method === 'POST').map((r) => r.json.messages[0].content);
    expect(sent.sort()).toEqual(['A replacement character \ufffd written as UTF-8', 'déjà vu in UTF-8']);
    const states = readJournal(ws.path('state', 'csv.db')).items.map((i) => [i.id, i.state]);
    expect(states).toEqual([
      ['r1', 'invalid'],
      ['r2', 'downloaded'],
      ['@latin1.csv:4', 'invalid'],
      ['r4', 'invalid'],
      ['r5', 'downloaded'],
    ]);
  },
);

/** The worker thread's threshold for the CLI here (scanWorkerEnv): thirteen chunk boundaries fit under it. */
const THRESHOLD = 3 << 20;
/** Long rows: fewer of them fill the manifest, so the test stays quick. */
const FILLER = 'Lorem ipsum dolor sit amet consectetur adipiscing elit. '.repeat(16);
const CHUNK = 256 * 1024; // the manifest reader's highWaterMark (manifest-file.ts)

/**
 * A manifest over the worker threshold. Across chunk boundaries it puts, in turn, a 4-byte emoji, a
 * 3-byte CJK character and a U+FFFD (all valid), and once a Latin-1 byte as the chunk's last byte; one
 * ordinary row in the middle holds a Latin-1 byte too. Returns the file, the lines of the bad rows and
 * how many rows hold each valid character across a boundary.
 */
function largeManifest(format: 'csv' | 'jsonl'): {
  bytes: Buffer;
  badLines: number[];
  rows: number;
  straddling: Map<string, number>;
} {
  const line = format === 'csv' ? csvLine : jsonlLine;
  const parts: Buffer[] = format === 'csv' ? [utf8('id,kind,model,prompt\n')] : [];
  const firstLine = format === 'csv' ? 2 : 1;
  let length = parts[0]?.length ?? 0;
  const badLines: number[] = [];
  let boundary = CHUNK;
  let k = 1;
  const straddlers = ['🚀', '東', '\ufffd'];
  const straddling = new Map(straddlers.map((char) => [char, 0]));
  for (let i = 0; length < THRESHOLD + CHUNK; i++) {
    const id = `row-${i}`;
    let prompt: Buffer = utf8(`Tell me one short fact about the number ${i} please. ${FILLER}`);
    if (i === 1_500) {
      prompt = latin1(`Un café pour le numéro ${i}`);
      badLines.push(firstLine + i);
    }
    let next = line(id, prompt);
    // The row before the one that would cross the boundary is stretched to put its special across it.
    if (length + 2 * next.length > boundary) {
      const special = k === 7 ? latin1('é') : utf8(straddlers[k % 3]!);
      if (k !== 7) straddling.set(straddlers[k % 3]!, straddling.get(straddlers[k % 3]!)! + 1);
      const before = line(id, '').indexOf(format === 'csv' ? '\n' : '"}]}');
      const pad = boundary - 1 - length - before; // the special's first byte is the chunk's last byte
      next = line(id, Buffer.concat([utf8('x'.repeat(pad)), special, utf8(' and more')]));
      if (k === 7) badLines.push(firstLine + i);
      boundary += CHUNK;
      k++;
    }
    parts.push(next);
    length += next.length;
  }
  return { bytes: Buffer.concat(parts), badLines, rows: parts.length - (format === 'csv' ? 1 : 0), straddling };
}

test.skipIf(!BUILT).each(['csv', 'jsonl'] as const)(
  'a %s manifest over the worker threshold: the Latin-1 rows are refused by line, characters split across chunks pass',
  async (format) => {
    const ws = workspace();
    const file = ws.path(`big.${format}`);
    const { bytes, badLines, rows, straddling } = largeManifest(format);
    expect(bytes.length).toBeGreaterThan(THRESHOLD);
    expect(bytes[7 * CHUNK - 1]).toBe(0xe9); // a Latin-1 byte as the last byte of a chunk
    expect(bytes.subarray(CHUNK - 1, CHUNK + 2)).toEqual(utf8('東')); // characters across boundaries
    expect(bytes.subarray(2 * CHUNK - 1, 2 * CHUNK + 2)).toEqual(utf8('\ufffd'));
    expect(bytes.subarray(3 * CHUNK - 1, 3 * CHUNK + 3)).toEqual(utf8('🚀'));
    writeFileSync(file, bytes);

    const env = scanWorkerEnv(THRESHOLD);
    const refused = await runCli(['run', file, '--ingest-only', '--state', ws.state, '--json'], { env });
    expect(refused.code).toBe(2);
    const reported = [
      ...refused.stderr.matchAll(
        /:(\d+) row '[^']*' field '(?:prompt|messages)': not valid UTF-8 \(byte 0xE9\); save the file as UTF-8/g,
      ),
    ].map((m) => Number(m[1]));
    expect(reported).toEqual(badLines);
    expect(refused.stderr.match(/not valid UTF-8/g)).toHaveLength(2);
    expect(readJournal(ws.state).items).toHaveLength(0);

    const skipped = await runCli(['run', file, '--ingest-only', '--skip-invalid', '--state', ws.state, '--json'], {
      env,
    });
    expect(skipped.code, skipped.stderr).toBe(0);
    expect(stdoutJson(skipped).ingest).toMatchObject({ rows, invalid: 2 });
    // The rows with a character across a chunk boundary are in the journal with that character intact.
    const items = readJournal(ws.state).items;
    const contents = items.map((i) => JSON.stringify(i.request));
    for (const [char, count] of straddling) {
      expect(count, char).toBeGreaterThanOrEqual(4);
      expect(contents.filter((c) => c.includes(`x${char} and more`)).length, char).toBe(count);
    }
    expect(items.filter((i) => i.state === 'invalid').map((i) => i.sourceLine)).toEqual(badLines);
  },
  60_000,
);
