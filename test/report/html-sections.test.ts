import type { JobAddress } from '../../src/core/job-address.js';
import { parseHTML } from 'linkedom';
import { describe, expect, it } from 'vitest';
import type { ReportHeader, ReportItem } from '../../src/report/model.js';
import { CSP, htmlDocument } from '../../src/report/html/document.js';
import { esc } from '../../src/report/html/escape.js';
import { causeOf, ProblemGrouper } from '../../src/report/html/problems.js';
import {
  duration,
  estimateSection,
  figure,
  headline,
  problemsSection,
  rowsSection,
  timeSections,
  type HtmlReportInput,
} from '../../src/report/html/sections.js';
import { TimelineBuilder } from '../../src/report/timeline.js';

const HOSTILE = `<img src=x onerror=alert(1)>"'&\u001b[2J`;

function item(over: Partial<ReportItem>): ReportItem {
  return {
    id: 'a',
    kind: 'chat',
    model: 'chat-small',
    state: 'downloaded',
    task_id: null,
    resolution: null,
    final_resolution: null,
    has_reference_video: false,
    estimated_usd: 0.01,
    actual_usd: 0.008,
    total_tokens: 10,
    output: null,
    sha256: null,
    bytes: null,
    error: null,
    attempts: 1,
    auto_resubmits: 0,
    gateway_charge_usd: null,
    overshoot_usd: 0,
    unmetered: false,
    table_usd: null,
    mispriced: false,
    source: 'm.jsonl:1',
    submitted_at: null,
    accepted_at: null,
    succeeded_at: null,
    finished_at: null,
    duration_ms: null,
    ...over,
  };
}

const header: ReportHeader = {
  job: HOSTILE,
  totals: {
    items: 3,
    by_state: { downloaded: 1, rejected: 1, uncertain: 1 },
    estimated_usd: 0.03,
    actual_usd: 0.008,
    delta_usd: -0.002,
    budget_usd: 1,
    reserved_usd: 0.01,
    settled_items: 1,
    settled_estimated_usd: 0.01,
    overshoot_usd: 0,
    gateway_charge_usd: null,
    gateway_charged_items: 0,
    unmetered_items: 0,
    started_at: '2026-11-24T01:00:00.000Z',
    ended_at: '2026-11-24T01:02:00.000Z',
    duration_ms: 120_000,
  },
  by_model: [
    {
      model: HOSTILE,
      resolution: null,
      items: 3,
      settled_items: 1,
      estimated_usd: 0.03,
      actual_usd: 0.008,
      delta_usd: -0.002,
      total_tokens: 10,
    },
  ],
  forecast: null,
};

const NIGHTLY: JobAddress = {
  name: 'nightly',
  journal: { adapter: 'sqlite', file: 'state/nightly.db', isDefault: true },
  source: 'jobs/m.jsonl',
  sourceFindsJournal: false,
};

function input(rows: ReportItem[]): HtmlReportInput {
  const grouper = new ProblemGrouper(NIGHTLY);
  for (const r of rows) grouper.add(r);
  return {
    header,
    timeline: new TimelineBuilder().finish(),
    journalArg: 'nightly',
    address: NIGHTLY,
    standing: null,
    lastRun: {
      startedAt: 0,
      endedAt: 1,
      exitCode: 4,
      stopReason: null,
      message: null,
      meaning: 'some items are uncertain',
    },
    marks: new Map(),
    problems: grouper.finish(),
    rows,
    generatedAt: Date.UTC(2026, 10, 24, 2),
  };
}

describe('html sections', () => {
  const rows = [
    item({ id: HOSTILE }),
    item({ id: 'r1', state: 'rejected', actual_usd: null, error: { status: 400, message: `400 bad ${HOSTILE}` } }),
    item({ id: 'u1', state: 'uncertain', actual_usd: null, error: { message: 'headers timeout' } }),
  ];
  const page = htmlDocument(
    't',
    [
      headline(input(rows)),
      estimateSection(input(rows)),
      timeSections(input(rows)),
      problemsSection(input(rows)),
      rowsSection(input(rows)),
    ].join('\n'),
  );

  it('escapes every outside text: no markup, no control character reaches the page', () => {
    expect(page).not.toContain('<img');
    expect(page).not.toContain('\u001b');
    expect(page).toContain('&lt;img src=x onerror=alert(1)&gt;&quot;&#39;&amp;\\x1b[2J');
    expect(esc(HOSTILE)).not.toMatch(/[<>"']/);
  });

  it('is self-contained: a CSP, no script, no URL to load', () => {
    expect(page).toContain(`content="${CSP}"`);
    const { document } = parseHTML(page);
    expect(document.querySelectorAll('script, link, img, iframe, object, embed, image, use').length).toBe(0);
    for (const el of document.querySelectorAll('*')) {
      for (const name of el.getAttributeNames()) {
        if (name === 'href' && el.getAttribute(name).startsWith('#')) continue; // a place in the page
        expect(name, el.tagName).not.toMatch(/^(src|srcset|href|xlink:href|action|on.*)$/i);
      }
    }
    expect(page).not.toMatch(/url\(|@import/i);
    expect(page).toContain('@media print');
  });

  it('every figure carries its JSON path and exact value', () => {
    expect(figure(['totals', 'actual_usd'], 0.008, '$0.01')).toBe(
      '<span data-path="[&quot;totals&quot;,&quot;actual_usd&quot;]" data-value="0.008">$0.01</span>',
    );
    expect(page).toContain('data-value="120000"');
    const none = headline({
      ...input(rows),
      header: { ...header, totals: { ...header.totals, by_state: { pending: 3 } } },
    });
    expect(none).toContain(
      'data-path="[&quot;totals&quot;,&quot;by_state&quot;,&quot;downloaded&quot;]" data-value="null">0<',
    );
    expect(page).toMatch(/data-path="\[&quot;items&quot;,&quot;r1&quot;,&quot;actual_usd&quot;\]" data-value="null"/);
  });

  it('problems come grouped, uncertain first, each with its next command; the headline says what to do', () => {
    expect(page.indexOf('headers timeout')).toBeLessThan(page.indexOf('400 bad'));
    expect(page).toContain('gbatch resolve nightly u1 --resubmit');
    expect(page).toContain('gbatch retry nightly r1');
    expect(page).toContain('exit <strong>4</strong>: some items are uncertain');
  });

  it('rows past the inline limit are pointed at the CSV', () => {
    const many = input(rows.slice(0, 1));
    expect(rowsSection({ ...many, header: { ...header, totals: { ...header.totals, items: 5000 } } })).toContain(
      '4,999 more row(s)',
    );
  });

  it('causes fold row-specific parts; durations read as people write them', () => {
    expect(
      causeOf(
        item({
          state: 'invalid',
          error: { message: "jobs/m.jsonl:250 row 'bad-1' field 'messages': must not be empty" },
        }),
      ),
    ).toBe(
      causeOf(
        item({
          state: 'invalid',
          error: { message: "jobs/m.jsonl:500 row 'bad-2' field 'messages': must not be empty" },
        }),
      ),
    );
    // The cause is what happened, its status and code: not the message, which names amounts and ids.
    expect(causeOf(item({ state: 'rejected', error: { status: 400, code: 'bad', message: 'nope' } }))).toBe(
      'rejected 400 bad',
    );
    expect(
      causeOf(item({ state: 'rejected', error: { status: 400, code: 'bad', message: 'other words, $1.25' } })),
    ).toBe('rejected 400 bad');
    expect(
      causeOf(
        item({
          state: 'deferred',
          error: { message: 'deferred by --budget: needs up to $0.0123 but $0.0001 of the $0.01 budget remains' },
        }),
      ),
    ).toBe(
      causeOf(
        item({
          state: 'deferred',
          error: { message: 'deferred by --budget: needs up to $0.9 but $0 of the $0.01 budget remains' },
        }),
      ),
    );
    // A message that names its outcome is not prefixed with it again ("deferred deferred by --budget").
    expect(
      causeOf(item({ state: 'deferred', error: { message: 'deferred by --budget: needs up to $0.9 but $0 remains' } })),
    ).toBe('deferred by --budget');
    expect(causeOf(item({ state: 'failed', task_id: 't1', error: { message: 'Simulated upstream failure 17' } }))).toBe(
      'task failed Simulated upstream failure #',
    );
    expect([duration(null), duration(450), duration(4500), duration(125_000), duration(3 * 3600_000 + 60_000)]).toEqual(
      ['-', '450 ms', '4.5 s', '2 min 5 s', '3 h 1 min'],
    );
  });

  it('a job with video rows has the video durations panel; a text-only one has none', () => {
    const text = parseHTML(`<main>${timeSections(input(rows))}</main>`).document;
    expect(text.querySelector('#durations')).toBeNull();
    expect(text.querySelector('#states')).not.toBeNull();
    const withVideo = {
      ...input(rows),
      header: {
        ...header,
        by_model: [...header.by_model, { ...header.by_model[0]!, model: 'video-mini', resolution: '480p' }],
      },
    };
    expect(
      parseHTML(`<main>${timeSections(withVideo)}</main>`).document.querySelector('#durations')!.textContent,
    ).toContain('No video task has succeeded');
  });

  it('a large group names the bulk flag, a small one its ids', () => {
    const g = new ProblemGrouper({ journal: { adapter: 'sqlite', file: 's.db', isDefault: false } });
    for (let i = 0; i < 30; i++) g.add(item({ id: `f${i}`, state: 'failed', error: { message: 'upstream failed' } }));
    const { groups } = g.finish();
    expect(groups).toHaveLength(1);
    expect(groups[0]).toMatchObject({ count: 30, ids: ['f0', 'f1', 'f2', 'f3', 'f4'] });
    expect(groups[0]!.commands[0]).toBe('gbatch retry --state s.db --failed');
  });
});
