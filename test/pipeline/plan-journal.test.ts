// plan's reading of the job's journal, on a real SQLite file: the same rule run's ingest applies.
import { describe, expect, it } from 'vitest';
import { hashCanonicalRequest } from '../../src/manifest/content-hash.js';
import type { ManifestRow } from '../../src/manifest/types.js';
import { PlanAgainstJournal } from '../../src/pipeline/plan-journal.js';
import { entry, forceState, ingest, useTempDir } from '../journal/helpers.js';

const tmp = useTempDir('gbatch-plan-journal-');

function row(id: string, content: string, file = 'a.jsonl', line = 1): ManifestRow {
  const request = { model: 'chat-small', messages: [{ role: 'user', content }] };
  return { file, line, id, kind: 'chat', model: 'chat-small', request, requestJson: JSON.stringify(request) };
}

function journalRow(id: string, content: string, line: number) {
  const r = row(id, content, 'a.jsonl', line);
  return entry(id, { request: r.request, requestJson: r.requestJson, contentHash: hashCanonicalRequest('chat', r.requestJson), sourceFile: 'a.jsonl', sourceLine: line });
}

describe('PlanAgainstJournal', () => {
  it('without a journal and with one manifest it checks nothing: every row remains', () => {
    const plan = new PlanAgainstJournal(undefined, 1);
    expect(plan.active).toBe(false);
    expect([plan.judge(row('a', 'x')), plan.judge(row('a', 'y'))]).toEqual(['remaining', 'remaining']);
  });

  it('journal rows: unsent ones remain, sent ones are held, changed ones are refused in run\'s words', () => {
    const journal = tmp.open();
    ingest(journal, [journalRow('pending', 'p', 1), journalRow('done', 'd', 2), journalRow('deferred', 'f', 3), journalRow('flying', 'v', 4)]);
    forceState(journal, 'done', 'downloaded');
    forceState(journal, 'deferred', 'deferred');
    forceState(journal, 'flying', 'uncertain');
    const plan = new PlanAgainstJournal(journal, 1);
    expect(plan.judge(row('pending', 'p'))).toBe('remaining');
    expect(plan.judge(row('done', 'd'))).toBe('held');
    expect(plan.judge(row('deferred', 'f'))).toBe('remaining');
    expect(plan.judge(row('flying', 'v'))).toBe('held');
    expect(plan.judge(row('new', 'n'))).toBe('remaining');
    expect(plan.judge(row('done', 'changed', 'b.jsonl', 7))).toBe('conflict');
    expect(plan.problems()).toEqual([
      "b.jsonl:7 row 'done': already in the journal (from a.jsonl:2) with different content; give the changed row a new id",
    ]);
  });

  it('across manifests: a repeated row counts once, a changed one is refused against the first', () => {
    const journal = tmp.open();
    ingest(journal, [journalRow('old', 'o', 1)]);
    const plan = new PlanAgainstJournal(journal, 2);
    expect(plan.judge(row('old', 'o', 'a.jsonl', 1))).toBe('remaining');
    expect(plan.judge(row('old', 'o', 'b.jsonl', 1))).toBe('held');
    expect(plan.judge(row('fresh', 'f', 'a.jsonl', 2))).toBe('remaining');
    expect(plan.judge(row('fresh', 'f', 'b.jsonl', 2))).toBe('held');
    expect(plan.judge(row('fresh', 'g', 'b.jsonl', 3))).toBe('conflict');
    expect(plan.problems()).toEqual([
      "b.jsonl:3 row 'fresh': already in the journal (from a.jsonl:2) with different content; give the changed row a new id",
    ]);
  });
});
