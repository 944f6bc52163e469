// plan's reading of the job's journal, on a real SQLite file: the same rule run's ingest applies.
import { describe, expect, it } from 'vitest';
import { hashCanonicalRequest } from '../../src/manifest/content-hash.js';
import type { ManifestRow } from '../../src/manifest/types.js';
import { PlanAgainstJournal } from '../../src/pipeline/plan-journal.js';
import { entry, forceState, ingest, useTempDir } from '../helpers/journal-fixtures.js';

const tmp = useTempDir('gbatch-plan-journal-');

function row(id: string, content: string, file = 'a.jsonl', line = 1): ManifestRow {
  const request = { model: 'chat-small', messages: [{ role: 'user', content }] };
  return { file, line, id, kind: 'chat', model: 'chat-small', request, requestJson: JSON.stringify(request) };
}

function journalRow(id: string, content: string, line: number) {
  const r = row(id, content, 'a.jsonl', line);
  return entry(id, {
    request: r.request,
    requestJson: r.requestJson,
    contentHash: hashCanonicalRequest('chat', r.requestJson),
    sourceFile: 'a.jsonl',
    sourceLine: line,
  });
}

describe('PlanAgainstJournal', () => {
  it('without a journal and with one manifest it checks nothing: every row remains', async () => {
    const plan = new PlanAgainstJournal(undefined, 1);
    expect(plan.active).toBe(false);
    expect(await plan.judgeRows([row('a', 'x'), row('a', 'y')])).toEqual(['remaining', 'remaining']);
  });

  it("journal rows: unsent ones remain, sent ones are held, changed ones are refused in run's words", async () => {
    const journal = tmp.open();
    ingest(journal, [
      journalRow('pending', 'p', 1),
      journalRow('done', 'd', 2),
      journalRow('deferred', 'f', 3),
      journalRow('flying', 'v', 4),
    ]);
    forceState(journal, 'done', 'downloaded');
    forceState(journal, 'deferred', 'deferred');
    forceState(journal, 'flying', 'uncertain');
    const plan = new PlanAgainstJournal(journal.store, 1);
    expect((await plan.judgeRows([row('pending', 'p')]))[0]).toBe('remaining');
    expect((await plan.judgeRows([row('done', 'd')]))[0]).toBe('held');
    expect((await plan.judgeRows([row('deferred', 'f')]))[0]).toBe('remaining');
    expect((await plan.judgeRows([row('flying', 'v')]))[0]).toBe('held');
    expect((await plan.judgeRows([row('new', 'n')]))[0]).toBe('remaining');
    expect((await plan.judgeRows([row('done', 'changed', 'b.jsonl', 7)]))[0]).toBe('conflict');
    expect(plan.problems()).toEqual([
      "b.jsonl:7 row 'done': already in the journal (from a.jsonl:2) with different content; give the changed row a new id",
    ]);
  });

  it('across manifests: a repeated row counts once, a changed one is refused against the first', async () => {
    const journal = tmp.open();
    ingest(journal, [journalRow('old', 'o', 1)]);
    const plan = new PlanAgainstJournal(journal.store, 2);
    expect((await plan.judgeRows([row('old', 'o', 'a.jsonl', 1)]))[0]).toBe('remaining');
    expect((await plan.judgeRows([row('old', 'o', 'b.jsonl', 1)]))[0]).toBe('held');
    expect((await plan.judgeRows([row('fresh', 'f', 'a.jsonl', 2)]))[0]).toBe('remaining');
    expect((await plan.judgeRows([row('fresh', 'f', 'b.jsonl', 2)]))[0]).toBe('held');
    expect((await plan.judgeRows([row('fresh', 'g', 'b.jsonl', 3)]))[0]).toBe('conflict');
    expect(plan.problems()).toEqual([
      "b.jsonl:3 row 'fresh': already in the journal (from a.jsonl:2) with different content; give the changed row a new id",
    ]);
  });
});
