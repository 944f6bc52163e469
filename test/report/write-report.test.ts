import { describe, expect, it } from 'vitest';
import { reportHeader } from '../../src/report/model.js';
import { csvCell, writeReport, type ReportFormat } from '../../src/report/write-report.js';
import { entry, ingest, submitChange, useTempDir } from '../helpers/journal-fixtures.js';
import { seedReportJournal } from '../helpers/report-fixture.js';
import { rawDb, recountSummaries } from '../helpers/journal-raw.js';

const tmp = useTempDir('gbatch-report-');

const CONTRACT_TOTALS = ['items', 'by_state', 'estimated_usd', 'actual_usd', 'delta_usd', 'budget_usd'];
const CONTRACT_ITEM = [
  'id',
  'kind',
  'model',
  'state',
  'task_id',
  'resolution',
  'final_resolution',
  'has_reference_video',
  'estimated_usd',
  'actual_usd',
  'total_tokens',
  'output',
  'sha256',
  'bytes',
  'error',
];

async function render(
  journal: ReturnType<typeof tmp.open>,
  format: ReportFormat,
  budget: number | null = 5,
): Promise<{ text: string; chunks: number }> {
  let text = '';
  let chunks = 0;
  const store = journal.store;
  await writeReport(store, await reportHeader(store, 'nightly', budget), format, (chunk) => {
    text += chunk;
    chunks++;
  });
  return { text, chunks };
}

/** A minimal RFC 4180 reader, enough to check what a spreadsheet would see. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      row.push(cell);
      cell = '';
    } else if (ch === '\n') {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
    } else cell += ch;
  }
  if (cell !== '' || row.length > 0) {
    row.push(cell);
    rows.push(row);
  }
  return rows;
}

describe('csvCell', () => {
  it.each([
    [null, ''],
    [undefined, ''],
    ['plain', 'plain'],
    [42, '42'],
    [-0.5, '-0.5'], // a number is data, never a formula
    [true, 'true'],
    ['a,b', '"a,b"'],
    ['say "hi"', '"say ""hi"""'],
    ['two\nlines', '"two\nlines"'],
    ['cr\rhere', '"cr\rhere"'],
    ['=HYPERLINK("http://x")', '"\'=HYPERLINK(""http://x"")"'],
    ['+1+2', '"\'+1+2"'],
    ['-2', '"\'-2"'],
    ['@SUM(A1)', '"\'@SUM(A1)"'],
    ['\tlead', '"\'\tlead"'],
    ['mid=dle', 'mid=dle'],
    [{ message: '=oops, bad' }, '"\'=oops, bad"'],
    [{ status: 400 }, '"{""status"":400}"'],
  ])('%j -> %s', (value, cell) => {
    expect(csvCell(value)).toBe(cell);
  });
});

describe('writeReport', () => {
  it("json: parses, and has every field of the contract's report JSON", async () => {
    const journal = tmp.open();
    seedReportJournal(journal);
    const report = JSON.parse((await render(journal, 'json')).text);
    expect(report.job).toBe('nightly');
    for (const key of CONTRACT_TOTALS) expect(report.totals).toHaveProperty(key);
    expect(report.totals).toMatchObject({
      items: 7,
      estimated_usd: 2.04,
      actual_usd: 1.004,
      delta_usd: -0.006,
      budget_usd: 5,
    });
    expect(report.items.map((i: { id: string }) => i.id)).toEqual(['v1', 'v2', 'v3', 'c1', 'c2', 'bad', 'r1']);
    for (const item of report.items) {
      for (const key of CONTRACT_ITEM) expect(item, `${item.id}.${key}`).toHaveProperty(key);
    }
    expect(report.items[0]).toMatchObject({
      id: 'v1',
      state: 'downloaded',
      output: 'out/job/v1.mp4',
      bytes: 1234,
      error: null,
    });
    expect(report.by_model).toHaveLength(4);
  });

  it('json: each item carries its times from the event log; a row never sent has none', async () => {
    const journal = tmp.open();
    seedReportJournal(journal);
    const report = JSON.parse((await render(journal, 'json')).text);
    const byId = new Map<string, Record<string, unknown>>(report.items.map((i: { id: string }) => [i.id, i]));
    const events = journal.events('v1');
    const at = (event: string) => new Date(events.find((e) => e.event === event)!.at).toISOString();
    expect(byId.get('v1')).toMatchObject({
      submitted_at: at('submit'),
      accepted_at: at('accept'),
      succeeded_at: at('finish'),
      finished_at: at('store'),
    });
    expect(byId.get('v1')!.duration_ms).toBe(Date.parse(at('store')) - Date.parse(at('submit')));
    expect(byId.get('v3')).toMatchObject({
      accepted_at: expect.any(String),
      succeeded_at: null,
      finished_at: null,
      duration_ms: null,
    });
    expect(byId.get('bad')).toMatchObject({ submitted_at: null, finished_at: null, duration_ms: null });
  });

  it("json: a chat row's duration is its request's (submission to answer), not to the results file's write", async () => {
    let now = Date.UTC(2026, 10, 24, 1, 0, 0);
    const journal = tmp.open('job.db', { clock: { now: () => now } });
    ingest(journal, [
      entry('c1', { estimateUsd: 0.01 }),
      entry('v1', { kind: 'video', model: 'video-fast', resolution: '720p', estimateUsd: 0.5 }),
    ]);
    journal.apply(['c1', 'v1'].map((id) => submitChange(journal.get(id)!)));
    now += 170;
    journal.apply([
      {
        id: 'c1',
        event: 'complete',
        patch: { reservedUsd: 0, actualUsd: 0.004, totalTokens: 1500, response: { id: 'x' }, responseStatus: 200 },
      },
      { id: 'v1', event: 'accept', patch: { taskId: 'task-v1' } },
    ]);
    now += 60_000;
    journal.apply([{ id: 'v1', event: 'finish', patch: { reservedUsd: 0, actualUsd: 0.4, totalTokens: 108_900 } }]);
    // The answers' lines reach results.jsonl in a batch, seconds after the answer.
    now += 5_000;
    journal.apply([
      { id: 'c1', event: 'store', patch: { outputPath: 'out/job/results.jsonl' } },
      { id: 'v1', event: 'store', patch: { outputPath: 'out/job/v1.mp4', sha256: 'a'.repeat(64), bytes: 1234 } },
    ]);
    const items = JSON.parse((await render(journal, 'json')).text).items as Array<Record<string, unknown>>;
    const byId = new Map(items.map((i) => [i.id, i]));
    expect(byId.get('c1')).toMatchObject({ duration_ms: 170, finished_at: '2026-11-24T01:01:05.170Z' });
    // A video is done when its file is on disk: submission to download.
    expect(byId.get('v1')).toMatchObject({ duration_ms: 65_170 });
  });

  it('json: an empty journal is still valid JSON', async () => {
    const journal = tmp.open();
    const report = JSON.parse((await render(journal, 'json', null)).text);
    expect(report).toMatchObject({ job: 'nightly', items: [], totals: { items: 0, budget_usd: null } });
  });

  it('json: many rows stream out in several chunks and still parse', async () => {
    const journal = tmp.open();
    const insert = rawDb(journal)
      .prepare(`INSERT INTO items (id, kind, model, request, content_hash, source_file, source_line, state, estimate_usd, updated_at)
      VALUES (?, 'chat', 'chat-small', '{}', 'h', 'm.jsonl', ?, 'pending', 0.001, 0)`);
    rawDb(journal).transaction(() => {
      for (let i = 0; i < 2000; i++) insert.run(`row-${i}`, i + 1);
    })();
    recountSummaries(journal);
    const { text, chunks } = await render(journal, 'json');
    expect(chunks).toBeGreaterThan(2);
    const report = JSON.parse(text);
    expect(report.items).toHaveLength(2000);
    expect(report.totals.estimated_usd).toBe(2);
  });

  it('csv: a header and one row per item, with quoting and formula guard a spreadsheet reads back', async () => {
    const journal = tmp.open();
    seedReportJournal(journal);
    const rows = parseCsv((await render(journal, 'csv')).text);
    const header = rows[0]!;
    for (const key of CONTRACT_ITEM) expect(header).toContain(key);
    expect(rows).toHaveLength(1 + 7 + 4 + 1);
    const byId = new Map(rows.slice(1, 8).map((r) => [r[0]!, Object.fromEntries(header.map((h, i) => [h, r[i]]))]));
    expect(byId.get('v1')).toMatchObject({
      kind: 'video',
      state: 'downloaded',
      estimated_usd: '0.5',
      actual_usd: '0.4',
      bytes: '1234',
      error: '',
    });
    expect(byId.get('c2')).toMatchObject({ state: 'rejected', actual_usd: '', error: '400 =bad "quote", here' });
    expect(byId.get('bad')).toMatchObject({ model: '', source: 'jobs/chat.jsonl:3' });
    for (const row of rows) expect(row).toHaveLength(header.length);
  });

  it('csv: after the items, a model-total line per model and resolution and a total line, in the same columns', async () => {
    const journal = tmp.open();
    seedReportJournal(journal);
    const rows = parseCsv((await render(journal, 'csv')).text);
    const header = rows[0]!;
    const records = rows.slice(1).map((r) => Object.fromEntries(header.map((h, i) => [h, r[i]])));
    const items = records.filter((r) => r.rows === '1' && r.kind !== 'model-total' && r.kind !== 'total');
    expect(items).toHaveLength(7);
    const groups = records.filter((r) => r.kind === 'model-total');
    expect(groups.map((g) => [g.model, g.resolution, g.rows])).toEqual([
      ['chat-large', '', '1'],
      ['chat-small', '', '2'],
      ['video-fast', '720p', '2'],
      ['video-pro', '1080p', '1'],
    ]);
    expect(groups.find((g) => g.model === 'video-fast')).toMatchObject({ id: '', estimated_usd: '1', actual_usd: '1' });
    const [total] = records.filter((r) => r.kind === 'total');
    expect(records.at(-1)).toBe(total);
    expect(total).toMatchObject({
      id: '',
      rows: '7',
      estimated_usd: '2.04',
      actual_usd: '1.004',
      overshoot_usd: '0.1',
      gateway_charge_usd: '0.41',
      total_tokens: '260400',
    });
    expect(Number(total!.estimated_usd)).toBeCloseTo(
      items.reduce((n, r) => n + Number(r.estimated_usd), 0),
      9,
    );
  });

  it('table: names the job, every item, the groups and the totals', async () => {
    const journal = tmp.open();
    seedReportJournal(journal);
    const { text } = await render(journal, 'table');
    // States in lifecycle order, only those with items.
    expect(text.split('\n')[0]).toBe(
      'Job nightly: 7 item(s): running 1, downloaded 3, rejected 1, invalid 1, uncertain 1',
    );
    for (const id of ['v1', 'v2', 'v3', 'c1', 'c2', 'bad', 'r1']) expect(text).toMatch(new RegExp(`^${id}\\s`, 'm'));
    expect(text).toContain('720p->1080p');
    expect(text).toContain('actual $1.004000, delta -$0.006000, overshoot $0.100000');
    expect(text).toContain('Reserved (unsettled) $1.020000; budget $5.00\n');
  });

  it('table: says what actual and the gateway-reported charges each cover, so their difference is no riddle', async () => {
    const journal = tmp.open();
    seedReportJournal(journal);
    const lines = (await render(journal, 'table')).text.split('\n');
    // Actual $1.004: v1 $0.40 and v2 $0.60 by the table, c1 $0.004 by its usage; the gateway reported v1's alone.
    expect(lines).toContain(
      "Actual: what every settled item is booked at: chat and responses from their token usage, videos from their total_tokens (the gateway's charge where it was higher)",
    );
    expect(lines).toContain(
      'Gateway-reported charges $0.410000: what the gateway itself reported, for 1 video task(s); it reports none per chat or responses request, which actual counts from their token usage',
    );
  });

  it('table: a long error is cut in its cell and printed in full below the table', async () => {
    const journal = tmp.open();
    seedReportJournal(journal);
    const long = `400 the prompt was refused by the upstream safety system because ${'of many reasons '.repeat(6)}end`;
    rawDb(journal)
      .prepare('UPDATE items SET last_error = ? WHERE id = ?')
      .run(JSON.stringify({ status: 400, message: long }), 'c2');
    const { text } = await render(journal, 'table');
    const row = text.split('\n').find((l) => l.startsWith('c2 '))!;
    expect(row).toContain('... [1]');
    expect(row.length).toBeLessThan(text.split('\n').find((l) => l.startsWith('v1 '))!.length + 70);
    expect(text).toContain(`Notes in full:\n[1] c2: ${long}`);
  });
});
