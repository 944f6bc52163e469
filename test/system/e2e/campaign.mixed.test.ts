// A mixed campaign as a user runs it (CSV + JSONL, chat, responses, video with and without a reference
// video), checked against what the simulator saw and served; then `status` and `report` on the result.

import { readFileSync, writeFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Simulator } from '../../../src/sim/index.js';
import { BUILT, gatewayEnv, runCli, stdoutJson, type CliResult } from '../../helpers/cli.js';
import { reportItemOf, reportJson } from '../../helpers/report.js';
import { readJournal } from '../../helpers/journal-read.js';
import { writeCsv, writeJsonl } from '../../helpers/manifests.js';
import { chatCharges, duplicates, KEY, launchSim } from '../../helpers/sim.js';
import { createWorkspace, sha256File, SIM_VIDEO_SHA256, type Workspace } from '../../helpers/workspace.js';

const TEXT_IDS = ['chat-csv-1', 'chat-csv-2', 'resp-csv-1', 'chat-batch-1'];
const VIDEO_IDS = ['video-flat', 'video-batch', 'video-ref'];
const VIDEO_PROMPTS = {
  'video-flat': 'A lighthouse at dusk, slow pan',
  'video-batch': 'Rain on a tin roof, close up',
  'video-ref': 'Restyle the reference clip as charcoal sketches',
};

function writeCampaign(ws: Workspace): string {
  writeCsv(
    ws.path('text.csv'),
    ['id', 'kind', 'model', 'prompt', 'system', 'max_tokens', 'temperature'],
    [
      {
        id: 'chat-csv-1',
        kind: 'chat',
        model: 'chat-small',
        prompt: 'Name three rivers in Europe.',
        system: 'Be brief.',
        max_tokens: 24,
        temperature: 0.2,
      },
      {
        id: 'chat-csv-2',
        kind: 'chat',
        model: 'chat-large',
        prompt: 'Explain write-ahead logging, in one line.',
        max_tokens: 40,
      },
      {
        id: 'resp-csv-1',
        kind: 'responses',
        model: 'chat-small',
        prompt: 'List two uses of a journal.',
        max_tokens: '',
      },
    ],
  );
  writeJsonl(ws.path('mixed.jsonl'), [
    {
      id: 'video-flat',
      kind: 'video',
      model: 'video-mini',
      prompt: VIDEO_PROMPTS['video-flat'],
      resolution: '480p',
      duration: 2,
    },
    {
      custom_id: 'video-batch',
      method: 'POST',
      url: '/v1/video/generations',
      body: { model: 'video-fast', prompt: VIDEO_PROMPTS['video-batch'], resolution: '720p', duration: '3' },
    },
    {
      id: 'video-ref',
      kind: 'video',
      model: 'video-pro',
      prompt: VIDEO_PROMPTS['video-ref'],
      resolution: '1080p',
      duration: 2,
      video_url: 'https://example.com/reference/clip.mp4',
    },
    {
      custom_id: 'chat-batch-1',
      method: 'POST',
      url: '/v1/chat/completions',
      body: { model: 'chat-small', messages: [{ role: 'user', content: 'Say hello in Dutch.' }], max_tokens: 8 },
    },
  ]);
  const job = ws.path('campaign.json');
  writeFileSync(
    job,
    JSON.stringify({
      name: 'campaign',
      manifest: ['text.csv', 'mixed.jsonl'],
      options: { concurrency: 4, 'poll-interval': 0.05 },
    }),
  );
  return job;
}

describe.skipIf(!BUILT)('a mixed campaign run from the command line', () => {
  let ws: Workspace & { remove(): void };
  let sim: Simulator;
  let first: CliResult;
  let env: Record<string, string>;

  beforeAll(async () => {
    ws = createWorkspace();
    sim = await launchSim({ tokenNoise: 0.1 });
    env = gatewayEnv(sim.baseUrl, KEY);
    const job = writeCampaign(ws);
    first = await runCli(['run', job, '--state', ws.state, '--out', ws.out, '--json', '--quiet'], { env });
  });

  afterAll(async () => {
    await sim?.close();
    ws?.remove();
  });

  test('exits 0 with every item downloaded, each row sent exactly once', () => {
    expect(first.code, first.stderr).toBe(0);
    const summary = stdoutJson(first);
    expect(summary.exit_code).toBe(0);
    expect(summary.counts.downloaded).toBe(TEXT_IDS.length + VIDEO_IDS.length);
    const { items } = readJournal(ws.state);
    expect(items.map((i) => [i.id, i.state]).sort()).toEqual(
      [...TEXT_IDS, ...VIDEO_IDS].map((id) => [id, 'downloaded']).sort(),
    );
    expect(duplicates(sim.ledger)).toEqual({});
    expect(Object.keys(sim.ledger.submissionsByPrompt())).toHaveLength(TEXT_IDS.length + VIDEO_IDS.length);
    expect(sim.ledger.tasks.map((t) => t.prompt).sort()).toEqual(Object.values(VIDEO_PROMPTS).sort());
  });

  test('each video on disk is byte-identical to what the simulator served', () => {
    const { byId } = readJournal(ws.state);
    for (const id of VIDEO_IDS) {
      const output = byId.get(id)!.outputPath!;
      expect(output).toBe(join(ws.out, `${id}.mp4`));
      expect(sha256File(output)).toBe(SIM_VIDEO_SHA256);
      expect(byId.get(id)!.sha256).toBe(SIM_VIDEO_SHA256);
    }
    const ref = sim.ledger.tasks.find((t) => t.prompt === VIDEO_PROMPTS['video-ref'])!;
    expect(ref.hasReferenceVideo).toBe(true);
    expect(byId.get('video-ref')!.hasReferenceVideo).toBe(true);
  });

  test('results.jsonl holds one OpenAI Batch output line per item: the text answers and the videos on disk', () => {
    const lines = readFileSync(join(ws.out, 'results.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.custom_id).sort()).toEqual([...TEXT_IDS, ...VIDEO_IDS].sort());
    for (const line of lines) {
      expect(Object.keys(line).sort()).toEqual(['custom_id', 'error', 'id', 'response']);
      expect(line.error).toBeNull();
      expect(line.response.status_code).toBe(200);
      expect(line.response).toHaveProperty('request_id');
      if (TEXT_IDS.includes(line.custom_id)) expect(line.response.body.usage).toBeDefined();
    }
    const { byId } = readJournal(ws.state);
    for (const id of VIDEO_IDS) {
      const video = lines.find((l) => l.custom_id === id);
      expect(video.response.body).toEqual({
        object: 'video.generation',
        task_id: byId.get(id)!.taskId,
        status: 'SUCCESS',
        final_resolution: byId.get(id)!.finalResolution,
        file: join(ws.out, `${id}.mp4`),
        sha256: SIM_VIDEO_SHA256,
        bytes: byId.get(id)!.bytes,
      });
    }
    const chat = lines.find((l) => l.custom_id === 'chat-csv-1');
    expect(chat.response.body.choices[0].message.content).toEqual(expect.any(String));
    const responses = lines.find((l) => l.custom_id === 'resp-csv-1');
    expect(responses.response.body.status).toBe('completed');
  });

  test('report json: the actual total and every item equal the ledger charges', async () => {
    const report = await reportJson(ws.state);
    expect(report.totals.actual_usd).toBeCloseTo(sim.ledger.chargesTotal('acct-1'), 6);
    expect(report.totals.items).toBe(TEXT_IDS.length + VIDEO_IDS.length);
    expect(report.totals.by_state).toEqual({ downloaded: TEXT_IDS.length + VIDEO_IDS.length });
    for (const task of sim.ledger.tasks) {
      const id = Object.entries(VIDEO_PROMPTS).find(([, p]) => p === task.prompt)![0];
      const item = reportItemOf(report, id);
      expect(item.task_id).toBe(task.id);
      expect(item.actual_usd).toBeCloseTo(task.chargedUsd, 6);
      expect(item.total_tokens).toBe(task.totalTokens);
      expect(item.final_resolution).toBe(task.finalResolution);
    }
    const textActuals = TEXT_IDS.map((id) => reportItemOf(report, id).actual_usd!).sort((a, b) => a - b);
    const charged = chatCharges(sim.ledger).sort((a, b) => a - b);
    expect(charged).toHaveLength(textActuals.length);
    charged.forEach((usd, i) => expect(textActuals[i]).toBeCloseTo(usd, 6));
  });

  test('report json carries every field of the contract', async () => {
    const report = await reportJson(ws.state);
    expect(report.job).toBe('campaign');
    for (const field of ['items', 'by_state', 'estimated_usd', 'actual_usd', 'delta_usd', 'budget_usd'])
      expect(report.totals).toHaveProperty(field);
    expect(report.totals.budget_usd).toBeNull();
    const fields = [
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
    for (const item of report.items)
      for (const field of fields) expect(item, `${item.id}.${field}`).toHaveProperty(field);
    const ref = reportItemOf(report, 'video-ref');
    expect(ref).toMatchObject({
      kind: 'video',
      model: 'video-pro',
      resolution: '1080p',
      has_reference_video: true,
      sha256: SIM_VIDEO_SHA256,
      error: null,
    });
    expect(isAbsolute(ref.output!)).toBe(true); // --out was absolute
    const chat = reportItemOf(report, 'chat-csv-1');
    expect(chat).toMatchObject({
      kind: 'chat',
      model: 'chat-small',
      state: 'downloaded',
      task_id: null,
      resolution: null,
      output: join(ws.out, 'results.jsonl'),
    });
  });

  test('report csv and table list every item with its numbers, csv its totals; html writes a page', async () => {
    const csv = await runCli(['report', '--state', ws.state, '--format', 'csv']);
    expect(csv.code, csv.stderr).toBe(0);
    const [header, ...lines] = csv.stdout.trim().split('\n');
    const rows = lines.filter((r) => !/^,(model-total|total),/.test(r));
    expect(lines.at(-1)).toMatch(/^,total,/);
    const columns = header!.split(',');
    for (const c of [
      'id',
      'kind',
      'model',
      'state',
      'task_id',
      'resolution',
      'final_resolution',
      'estimated_usd',
      'actual_usd',
      'output',
      'sha256',
      'bytes',
    ]) {
      expect(columns).toContain(c);
    }
    expect(rows).toHaveLength(TEXT_IDS.length + VIDEO_IDS.length);
    const at = (row: string, column: string): string => row.split(',')[columns.indexOf(column)]!;
    const flat = rows.find((r) => r.startsWith('video-flat,'))!;
    expect(at(flat, 'state')).toBe('downloaded');
    expect(at(flat, 'sha256')).toBe(SIM_VIDEO_SHA256);
    expect(Number(at(flat, 'actual_usd'))).toBeCloseTo(
      sim.ledger.tasks.find((t) => t.prompt === VIDEO_PROMPTS['video-flat'])!.chargedUsd,
      6,
    );

    const table = await runCli(['report', '--state', ws.state, '--format', 'table']);
    expect(table.code, table.stderr).toBe(0);
    for (const id of [...TEXT_IDS, ...VIDEO_IDS]) expect(table.stdout).toContain(id);
    expect(table.stdout).toMatch(/7 item\(s\): downloaded 7/);

    const page = ws.path('reports', 'r.html');
    const html = await runCli(['report', '--state', ws.state, '--format', 'html', '--output', page]);
    expect(html.code, html.stderr).toBe(0);
    expect(readFileSync(page, 'utf8')).toMatch(/^<!doctype html>[\s\S]*video-flat[\s\S]*<\/html>\n$/);

    const written = ws.path('reports', 'r.csv');
    const toFile = await runCli(['report', '--state', ws.state, '--format', 'csv', '--output', written]);
    expect(toFile.code, toFile.stderr).toBe(0);
    expect(readFileSync(written, 'utf8')).toBe(csv.stdout);
  });

  test('status --json: counts, spend against the budget, nothing needing attention', async () => {
    const result = await runCli(['status', '--state', ws.state, '--json']);
    expect(result.code, result.stderr).toBe(0);
    const status = stdoutJson(result);
    expect(status.job).toBe('campaign');
    expect(status.counts.downloaded).toBe(7);
    expect(status.counts.uncertain).toBe(0);
    expect(status.actual_usd).toBeCloseTo(sim.ledger.chargesTotal('acct-1'), 6);
    expect(status.reserved_usd).toBe(0);
    expect(status.budget_usd).toBeNull();
    expect(status.estimated_usd).toBeGreaterThan(0);
    expect(status.runner).toBeNull();
    for (const list of Object.values(status.attention)) expect(list).toEqual([]);
    // Times from the journal's event log: the job's running time and how long its video tasks took.
    const tasks = sim.ledger.tasks;
    expect(status.video_tasks_succeeded).toBe(tasks.length);
    expect(status.video_task_median_ms).toBeGreaterThan(0);
    expect(Date.parse(status.last_event_at) - Date.parse(status.started_at)).toBe(status.elapsed_ms);
    expect(status.elapsed_ms).toBeGreaterThanOrEqual(status.video_task_median_ms);
    const text = await runCli(['status', '--state', ws.state]);
    expect(text.stdout).toMatch(
      /^Running time .+: first submission 20\d\d-.+; video tasks: median .+ from submission to success \(3 done\)$/m,
    );
  });
});
