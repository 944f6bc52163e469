import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { changedRowAdvice, journalArg, resendable, uncertainAdvice, type UncertainRow } from '../../src/job/advice.js';

const AT = Date.UTC(2026, 10, 23, 18, 30, 38, 123);
const video = (id: string, extra: Partial<UncertainRow> = {}): UncertainRow => ({
  id,
  kind: 'video',
  submittedAt: AT,
  promptStart: 'A heron lifting off a misty pond',
  error: null,
  ...extra,
});

describe('journalArg: how advice names the journal', () => {
  it("is the job name when the journal is that job's default, else --state with the real path", () => {
    expect(journalArg(join('state', 'demo.db'), 'demo')).toBe('demo');
    expect(journalArg('./state/demo.db', 'demo')).toBe('demo');
    expect(journalArg('/tmp/x/state/demo.db', 'demo')).toBe('--state /tmp/x/state/demo.db');
    expect(journalArg('state/other.db', 'demo')).toBe('--state state/other.db');
    expect(journalArg('state/demo.db', undefined)).toBe('--state state/demo.db');
    // `my.job` would be read back as state/my.db: the path is named instead.
    expect(journalArg('state/my.job.db', 'my.job')).toBe('--state state/my.job.db');
    expect(journalArg('my journals/j.db', 'x')).toBe("--state 'my journals/j.db'");
  });
});

describe('uncertainAdvice', () => {
  it('one video row: its time and prompt start, and the three decisions as commands with its real id and journal', () => {
    expect(uncertainAdvice([video('v7')], 1, '--state state/demo.db')).toEqual([
      "uncertain (1): the request may have reached the gateway (and may be billed). Find each in the gateway's dashboard by its submission time and prompt, then decide:",
      '  v7  video      submitted 2026-11-23T18:30:38.123Z  "A heron lifting off a misty pond"',
      '  found its task:  gbatch resolve --state state/demo.db v7 --task-id <T>   (the next run polls and downloads it)',
      '  send it again:   gbatch resolve --state state/demo.db v7 --resubmit   (if the first request was kept, both are billed)',
      '  give it up:      gbatch resolve --state state/demo.db v7 --abandon',
    ]);
  });

  it('several rows, more than shown: each listed, the count of the rest, <id> placeholders and the bulk form', () => {
    const rows = [
      video('v7'),
      {
        ...video('c1'),
        kind: 'chat' as const,
        submittedAt: undefined,
        promptStart: 'Name a star.',
        error: 'socket hang up',
      },
    ];
    const lines = uncertainAdvice(rows, 5, 'demo');
    expect(lines[0]).toMatch(/^uncertain \(5\): /);
    expect(lines.slice(1)).toEqual([
      '  v7  video      submitted 2026-11-23T18:30:38.123Z  "A heron lifting off a misty pond"',
      '  c1  chat       submitted at an unknown time  "Name a star."  (socket hang up)',
      '  ... 3 more: gbatch report demo --format csv',
      '  found its task:  gbatch resolve demo <id> --task-id <T>   (the next run polls and downloads it)',
      '  send it again:   gbatch resolve demo <id> --resubmit   (if the first request was kept, both are billed)',
      '  give it up:      gbatch resolve demo <id> --abandon',
      '  all at once:     gbatch resolve demo --all-uncertain --resubmit   (or --abandon)',
    ]);
  });

  it('text rows only: no --task-id advice (a chat call has no task); odd ids are quoted and escaped', () => {
    const lines = uncertainAdvice([{ ...video('a b\x1b]0;x\x07'), kind: 'responses', error: 'bad\nthing' }], 1, 'demo');
    expect(lines.join('\n')).not.toContain('--task-id');
    expect(lines[1]).toBe(
      '  \'a b\\x1b]0;x\\x07\'  responses  submitted 2026-11-23T18:30:38.123Z  "A heron lifting off a misty pond"  (bad\\x0athing)',
    );
    expect(lines[2]).toBe(
      "  send it again:   gbatch resolve demo 'a b\\x1b]0;x\\x07' --resubmit   (if the first request was kept, both are billed)",
    );
  });
});

describe('changedRowAdvice: rows a run skipped as changed (--skip-changed)', () => {
  const row = (
    id: string,
    state: Parameters<typeof resendable>[0][number]['state'],
    abandonedWhileUncertain = false,
  ) => ({
    id,
    state,
    abandonedWhileUncertain,
  });

  it('says no run sends them; retry has the next run send those that ended or wait; the rest need a new id', () => {
    const rows = [
      row('v1', 'failed'),
      row('v2', 'pending'),
      row('v3', 'downloaded'),
      row('v4', 'failed', true),
      row("it's", 'rejected'),
    ];
    expect(resendable(rows)).toEqual(['v1', 'v2', "it's"]);
    expect(changedRowAdvice(rows, 7, 'nightly.jsonl')).toEqual([
      "7 changed row(s) skipped (--skip-changed): no run sends them on its own, neither the journal's content nor the manifest's new one",
      `  to send the new content: gbatch retry nightly.jsonl v1 v2 'it'\\''s'   (the next run sends it in place of the old; the row's history is kept)`,
      '  sent already (downloaded, failed): to send the new content, give its manifest row a new id: v3, v4',
      '  ... 2 more: `gbatch status nightly.jsonl` lists the orphaned rows',
    ]);
    expect(changedRowAdvice([], 0, 'nightly.jsonl')).toEqual([]);
  });
});
