// A journal's SQLite objects (databases, statements, iterators) never become garbage: under Node 24 a
// native better-sqlite3 object collected in a garbage collection entered without a JavaScript context
// aborts the process (kept-handles.ts).
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { expect, test } from 'vitest';
import { openDatabase } from '../../../src/journal/sqlite/open-database.js';
import { useTempDir } from '../../helpers/journal-fixtures.js';

const temp = useTempDir();
const BUILT_OPENER = fileURLToPath(new URL('../../../dist/journal/sqlite/open-database.js', import.meta.url));

function collector(): () => void {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

/** Whether any of `make()`'s objects is collected once nothing here holds it. */
async function collectedAny(make: (register: (value: object) => void) => void): Promise<number> {
  let collected = 0;
  const registry = new FinalizationRegistry<undefined>(() => {
    collected++;
  });
  make((value) => registry.register(value, undefined));
  const gc = collector();
  for (let i = 0; i < 3; i++) {
    gc();
    // Finalization callbacks run as tasks of their own.
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  return collected;
}

test('statements, iterators and a closed database stay reachable after the code that made them drops them', async () => {
  const file = `${temp.dir()}/kept.db`;
  const collected = await collectedAny((register) => {
    const db = openDatabase(file, { readonly: false, sync: 'off' });
    db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)');
    for (let i = 0; i < 100; i++) {
      register(db.prepare('INSERT INTO t (v) VALUES (?)'));
      db.prepare('INSERT INTO t (v) VALUES (?)').run(`row ${i}`);
      const iterator = db.prepare('SELECT v FROM t WHERE id = ?').iterate(i);
      register(iterator);
      for (const row of iterator) void row;
    }
    register(db);
    db.close();
  });
  expect(collected).toBe(0);
});

test('one statement per SQL text, handed out with its output mode reset; another while it iterates', () => {
  const db = openDatabase(`${temp.dir()}/shared.db`, { readonly: false, sync: 'off' });
  try {
    db.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT); INSERT INTO t (v) VALUES ('a'), ('b')");
    const sql = 'SELECT id, v FROM t ORDER BY id';
    const first = db.prepare(sql);
    expect(first.pluck().get()).toBe(1);
    const again = db.prepare(sql);
    expect(again).toBe(first);
    expect(again.get()).toEqual({ id: 1, v: 'a' });

    const seen: unknown[] = [];
    for (const row of db.prepare(sql).iterate()) {
      const inner = db.prepare(sql);
      expect(inner).not.toBe(first);
      seen.push(row, inner.all().length);
    }
    expect(seen).toEqual([{ id: 1, v: 'a' }, 2, { id: 2, v: 'b' }, 2]);

    expect(db.pragma('user_version', { simple: true })).toBe(0);
    expect(db.pragma('user_version = 7')).toEqual([]);
    expect(db.pragma('user_version')).toEqual([{ user_version: 7 }]);
  } finally {
    db.close();
  }
  expect(() => db.prepare('SELECT 1')).toThrow(/not open/);
});

// The abort itself, in a process of its own: per-call statements, pragmas and iterators dropped, then
// young-generation collections entered from built-ins' allocations. Node 24 (before the fix) aborts.
const CHILD = `
const { openDatabase } = await import(process.argv[1]);
const db = openDatabase(process.argv[2], { readonly: false, sync: 'off' });
db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)');
for (let round = 0; round < 10; round++) {
  for (let i = 0; i < 200; i++) {
    db.pragma('user_version', { simple: true });
    db.prepare('INSERT INTO t (v) VALUES (?)').run('row ' + round + ' ' + i);
    for (const row of db.prepare('SELECT id FROM t WHERE id = ?').iterate(i)) void row;
  }
  const text = JSON.stringify(Array.from({ length: 20000 }, (_, i) => ({ i, s: 'value ' + i })));
  JSON.parse(text).map((o) => ({ ...o, t: o.s.split(' ') }));
  await new Promise((resolve) => setImmediate(resolve));
}
db.close();
process.stdout.write('done');
`;

test.skipIf(!existsSync(BUILT_OPENER))(
  'a process that drops thousands of statements and iterators collects its garbage and exits 0',
  async () => {
    const child = spawn(
      process.execPath,
      ['--input-type=module', '-e', CHILD, BUILT_OPENER, `${temp.dir()}/child.db`],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
      child.on('close', (c, s) => resolve([c, s])),
    );
    expect({ code, signal, stdout, stderr: stderr.slice(0, 500) }).toEqual({
      code: 0,
      signal: null,
      stdout: 'done',
      stderr: '',
    });
  },
);
