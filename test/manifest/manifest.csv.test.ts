// CSV manifests: header, typed cells, the prompt/system/body columns, and broken CSV.
import { describe, expect, it } from 'vitest';
import { RAW_TEXT_LIMIT } from '../../src/manifest/types.js';
import { messagesOf, readAll, rowsOf, tempDir, writeManifest } from '../helpers/manifest-reading.js';

const dir = tempDir();
const csv = (...lines: string[]) => `${lines.join('\n')}\n`;
/** Messages without the file path, which is a temp path. */
const shortMessages = (file: string, entries: Awaited<ReturnType<typeof readAll>>) =>
  messagesOf(entries).map((m) => m.slice(file.length));

describe('CSV columns to requests', () => {
  it("turns prompt and system into each kind's own fields", async () => {
    const file = writeManifest(
      dir,
      'prompts.csv',
      csv(
        'id,kind,model,prompt,system',
        'c1,chat,chat-small,Hello there,You are terse',
        'c2,chat,chat-small,Just a question,',
        'r1,responses,chat-large,Summarise this,Be brief',
        'v1,video,video-fast,A red kite over hills,',
      ),
    );
    const rows = rowsOf(await readAll(file));
    expect(rows.map((r) => [r.id, r.line, r.request])).toEqual([
      [
        'c1',
        2,
        {
          model: 'chat-small',
          messages: [
            { role: 'system', content: 'You are terse' },
            { role: 'user', content: 'Hello there' },
          ],
        },
      ],
      ['c2', 3, { model: 'chat-small', messages: [{ role: 'user', content: 'Just a question' }] }],
      ['r1', 4, { model: 'chat-large', input: 'Summarise this', instructions: 'Be brief' }],
      ['v1', 5, { model: 'video-fast', prompt: 'A red kite over hills' }],
    ]);
  });

  it("converts cells by the field's spec type; an empty cell is absent", async () => {
    const file = writeManifest(
      dir,
      'types.csv',
      csv(
        'id,kind,model,prompt,temperature,max_tokens,stream,stop,tools,n',
        'c1,chat,chat-small,hi,0.7,256,false,"[""END"",""STOP""]","[{""type"":""function""}]",',
        'c2,chat,chat-small,hi, ,,NO,END,,42',
      ),
    );
    const rows = rowsOf(await readAll(file));
    expect(rows[0]!.request).toEqual({
      model: 'chat-small',
      temperature: 0.7,
      max_tokens: 256,
      stream: false,
      stop: ['END', 'STOP'],
      tools: [{ type: 'function' }],
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(rows[1]!.request).toEqual({
      model: 'chat-small',
      stream: false,
      stop: 'END',
      n: 42,
      messages: [{ role: 'user', content: 'hi' }],
    });
  });

  it('reads video columns: numeric duration, booleans in several spellings, JSON lists, string response_format', async () => {
    const file = writeManifest(
      dir,
      'video.csv',
      csv(
        'id,kind,model,prompt,resolution,duration,seconds,generate_audio,images,video_url,response_format',
        'v1,video,video-pro,cat,4K,5,,yes,"[""https://x/a.png""]",https://x/ref.mp4,url',
        'v2,video,video-mini,dog,,,8,True,,,',
        'v3,video,video-mini,cow,,10,,1,,,',
        'v4,video,video-mini,pig,,,,0,,,',
      ),
    );
    const rows = rowsOf(await readAll(file));
    expect(rows.map((r) => r.request)).toEqual([
      {
        model: 'video-pro',
        prompt: 'cat',
        resolution: '4K',
        duration: 5,
        generate_audio: true,
        images: ['https://x/a.png'],
        video_url: 'https://x/ref.mp4',
        response_format: 'url',
      },
      { model: 'video-mini', prompt: 'dog', seconds: '8', generate_audio: true },
      { model: 'video-mini', prompt: 'cow', duration: 10, generate_audio: true },
      { model: 'video-mini', prompt: 'pig', generate_audio: false },
    ]);
  });

  it('reports a cell that does not convert, on that field', async () => {
    const file = writeManifest(
      dir,
      'convert.csv',
      csv(
        'id,kind,model,prompt,temperature,max_tokens,generate_audio,images,duration,system',
        'c1,chat,chat-small,hi,warm,,,,,',
        'c2,chat,chat-small,hi,,2.5,,,,',
        'v1,video,video-pro,cat,,,maybe,,,',
        'v2,video,video-pro,cat,,,,[oops,,',
        'v3,video,video-pro,cat,,,,,abc,',
        'v4,video,video-pro,cat,,,,,,be nice',
        'c3,chat,chat-small,,,,,,,be nice',
      ),
    );
    const entries = await readAll(file);
    expect(entries.every((e) => !e.ok)).toBe(true);
    expect(shortMessages(file, entries)).toEqual([
      ":2 row 'c1' field 'temperature': must be a number, got 'warm'",
      ":3 row 'c2' field 'max_tokens': must be an integer, got '2.5'",
      ":4 row 'v1' field 'generate_audio': must be true or false (or 1/0, yes/no), got 'maybe'",
      expect.stringMatching(/^:5 row 'v2' field 'images': must hold JSON: /),
      ":6 row 'v3' field 'duration': must be a whole number of seconds from 0 to 3600 (an integer or a numeric string), got 'abc'",
      ":7 row 'v4' field 'system': applies only to chat and responses rows",
      ":8 row 'c3' field 'system': needs a prompt: it becomes the system message before it",
      ":8 row 'c3' field 'prompt': is required",
    ]);
  });

  it('merges a body column into the request and refuses a key set twice', async () => {
    const file = writeManifest(
      dir,
      'body.csv',
      csv(
        'id,kind,model,prompt,temperature,body',
        'b1,chat,chat-small,hi,0.5,"{""max_tokens"": 64, ""user"": ""u-1""}"',
        'b2,chat,chat-small,hi,0.5,"{""temperature"": 1}"',
        'b3,chat,chat-small,hi,,"{""messages"": [], ""id"": ""zz""}"',
        'b4,chat,,hi,,"{""model"": ""chat-large""}"',
        'b5,chat,chat-small,hi,,[1]',
        'b6,chat,chat-small,hi,,{oops',
      ),
    );
    const entries = await readAll(file);
    expect(rowsOf(entries).map((r) => [r.id, r.request])).toEqual([
      [
        'b1',
        {
          model: 'chat-small',
          temperature: 0.5,
          messages: [{ role: 'user', content: 'hi' }],
          max_tokens: 64,
          user: 'u-1',
        },
      ],
      ['b4', { model: 'chat-large', messages: [{ role: 'user', content: 'hi' }] }],
    ]);
    expect(shortMessages(file, entries)).toEqual([
      ":3 row 'b2' field 'temperature': is set by both column 'temperature' and body",
      ":4 row 'b3' field 'messages': is set by both column 'prompt' and body",
      ":4 row 'b3' field 'id': is set by both column 'id' and body",
      ":6 row 'b5' field 'body': must hold a JSON object, got an array",
      expect.stringMatching(/^:7 row 'b6' field 'body': must hold a JSON object: /),
    ]);
  });
  it('keeps a __proto__ key of body as an ordinary request field', async () => {
    const file = writeManifest(
      dir,
      'proto.csv',
      csv('id,kind,model,prompt,body', 'p1,video,video-mini,cat,"{""__proto__"": {""x"": 1}}"'),
    );
    const [row] = rowsOf(await readAll(file));
    expect(Object.getPrototypeOf(row!.request)).toBe(Object.prototype);
    expect(Object.keys(row!.request).sort()).toEqual(['__proto__', 'model', 'prompt']);
    expect(Object.getOwnPropertyDescriptor(row!.request, '__proto__')?.value).toEqual({ x: 1 });
    expect(row!.requestJson).toBe('{"__proto__":{"x":1},"model":"video-mini","prompt":"cat"}');
  });
});

describe('CSV header', () => {
  it('stops at a header without a required column: one error entry, for line 1', async () => {
    const file = writeManifest(
      dir,
      'no-prompt.csv',
      csv('id,kind,model,input', 'r1,chat,chat-small,hi', 'r2,chat,chat-small,hi'),
    );
    const entries = await readAll(file);
    expect(entries).toEqual([
      {
        ok: false,
        file,
        line: 1,
        raw: 'id,kind,model,input',
        errors: [
          {
            file,
            line: 1,
            field: 'prompt',
            reason: "the header lacks the required column 'prompt' (required: id, kind, model, prompt)",
          },
        ],
      },
    ]);
  });

  it('names every header problem at once', async () => {
    const file = writeManifest(dir, 'bad-header.csv', csv('id,model,model,prompt,', 'r1,chat-small,chat-small,hi,'));
    expect(shortMessages(file, await readAll(file))).toEqual([
      ":1 field 'model': column 'model' appears twice in the header",
      ':1: column 5 of the header has no name',
      ":1 field 'kind': the header lacks the required column 'kind' (required: id, kind, model, prompt)",
    ]);
  });

  it('reports an empty file as missing its header', async () => {
    const file = writeManifest(dir, 'empty.csv', '\n\n');
    expect(shortMessages(file, await readAll(file))).toEqual([
      ':1: the CSV manifest has no header row (required columns: id, kind, model, prompt)',
    ]);
  });
});

describe('CSV text', () => {
  it('numbers rows by the physical line they start on, across multi-line cells, blank and comma-only lines', async () => {
    const file = writeManifest(
      dir,
      'lines.csv',
      csv(
        'id,kind,model,prompt',
        'a,chat,chat-small,"first line',
        'second line"',
        '',
        ',,,',
        'b,chat,chat-small,"x',
        '',
        'y"',
        'c,chat,chat-small,z',
      ),
    );
    const rows = rowsOf(await readAll(file));
    expect(rows.map((r) => [r.id, r.line])).toEqual([
      ['a', 2],
      ['b', 6],
      ['c', 9],
    ]);
    expect(rows[1]!.request.messages).toEqual([{ role: 'user', content: 'x\n\ny' }]);
  });

  it('reads a BOM and CRLF line ends, CRLF inside quoted cells included', async () => {
    const text = '\uFEFFid,kind,model,prompt\r\na,chat,chat-small,"one\r\ntwo"\r\n\r\nb,chat,chat-small,three\r\n';
    const rows = rowsOf(await readAll(writeManifest(dir, 'crlf.csv', text)));
    expect(rows.map((r) => [r.id, r.line, r.request.messages])).toEqual([
      ['a', 2, [{ role: 'user', content: 'one\r\ntwo' }]],
      ['b', 5, [{ role: 'user', content: 'three' }]],
    ]);
  });

  it('reports a row with a wrong column count and reads the rest', async () => {
    const file = writeManifest(
      dir,
      'columns.csv',
      csv(
        'id,kind,model,prompt',
        'a,chat,chat-small,hi',
        'short,chat,chat-small',
        'long,chat,chat-small,hi,extra',
        'b,chat,chat-small,hi',
      ),
    );
    const entries = await readAll(file);
    expect(rowsOf(entries).map((r) => r.id)).toEqual(['a', 'b']);
    expect(shortMessages(file, entries)).toEqual([
      ":3 row 'short': bad CSV: the header has 4 columns, this row has 3",
      ":4 row 'long': bad CSV: the header has 4 columns, this row has 5",
    ]);
    expect(entries[1]).toMatchObject({ ok: false, raw: 'short,chat,chat-small' });
  });

  it('keeps the text of a reported row as written: blank lines before it dropped, quoted line breaks and non-ASCII kept', async () => {
    const file = writeManifest(
      dir,
      'raw-text.csv',
      csv(
        'id,kind,model,prompt',
        'a,chat,chat-small,hi',
        '',
        '\r',
        'mütze,chat,chat-small,"line one',
        'line two",surplus',
        'b,chat,chat-small,hi',
        'gone,chat',
      ),
    );
    const entries = await readAll(file);
    expect(rowsOf(entries).map((r) => r.id)).toEqual(['a', 'b']);
    expect(entries.filter((e) => !e.ok)).toMatchObject([
      { line: 5, id: 'mütze', raw: 'mütze,chat,chat-small,"line one\nline two",surplus' },
      { line: 8, id: 'gone', raw: 'gone,chat' },
    ]);
  });

  it('leaves the lines csv-parse skips (commas and spaces only) out of the next reported row', async () => {
    const file = writeManifest(
      dir,
      'raw-skipped.csv',
      csv('id,kind,model,prompt', 'a,chat,chat-small,hi', ',,,', ' , ,,', 'bad,chat'),
    );
    const [entry] = (await readAll(file)).filter((e) => !e.ok);
    expect(entry).toMatchObject({ line: 5, id: 'bad', raw: 'bad,chat' });
  });

  it('keeps at most 2 KB of a long reported row', async () => {
    const long = `long,chat,chat-small,${'é'.repeat(20_000)},surplus`;
    const file = writeManifest(dir, 'raw-long.csv', csv('id,kind,model,prompt', long));
    const [entry] = (await readAll(file)).filter((e) => !e.ok);
    expect(entry).toMatchObject({ line: 2, id: 'long', raw: `${long.slice(0, RAW_TEXT_LIMIT)}…` });
  });

  it('reports an unbalanced quote on the line it opens and reads every line after it', async () => {
    const file = writeManifest(
      dir,
      'quotes.csv',
      csv(
        'id,kind,model,prompt',
        'a,chat,chat-small,hi',
        'open,chat,chat-small,"never closed',
        'b,chat,chat-small,hi',
        'stray,chat,chat-small,"closed"early',
        'inner,chat,chat-small,say "hi"',
        'c,chat,chat-small,"fine, ""quoted"""',
      ),
    );
    const entries = await readAll(file);
    expect(rowsOf(entries).map((r) => [r.id, r.line])).toEqual([
      ['a', 2],
      ['b', 4],
      ['c', 7],
    ]);
    expect(rowsOf(entries)[2]!.request.messages).toEqual([{ role: 'user', content: 'fine, "quoted"' }]);
    expect(shortMessages(file, entries)).toEqual([
      ":3 row 'open': bad CSV: a quote opened in this row is never closed",
      ':5 row \'stray\': bad CSV: a closing quote must be followed by a comma or the end of the line (inside a quoted cell, write a quote as "")',
      ":6 row 'inner': bad CSV: a quote inside an unquoted cell (quote the whole cell and double the quotes inside it)",
    ]);
    expect(entries[1]).toMatchObject({ ok: false, line: 3, id: 'open', raw: 'open,chat,chat-small,"never closed' });
  });

  it('reports a broken header line as the single error', async () => {
    const file = writeManifest(dir, 'header-quote.csv', csv('id,kind,"model,prompt', 'a,chat,chat-small,hi'));
    expect(shortMessages(file, await readAll(file))).toEqual([
      ':1: bad CSV: a quote opened in this row is never closed',
    ]);
  });

  it('keeps line numbers and recovery exact across read chunks (multi-line CRLF cells, > 256 KB)', async () => {
    const count = 6000;
    const lines = ['id,kind,model,prompt'];
    for (let i = 0; i < count; i++) lines.push(`r${i},chat,chat-small,"row ${i} ${'x'.repeat(i % 50)}\r\nsecond line"`);
    lines.push('broken,chat,chat-small,"unclosed', 'last,chat,chat-small,ok');
    const file = writeManifest(dir, 'chunks.csv', lines.join('\r\n'));
    const entries = await readAll(file);
    const rows = rowsOf(entries);
    expect(rows).toHaveLength(count + 1);
    rows.slice(0, count).forEach((row, i) => expect([row.id, row.line]).toEqual([`r${i}`, 2 + 2 * i]));
    expect(rows[count]).toMatchObject({ id: 'last', line: 2 + 2 * count + 1 });
    expect(shortMessages(file, entries)).toEqual([
      `:${2 + 2 * count} row 'broken': bad CSV: a quote opened in this row is never closed`,
    ]);
  });
});
