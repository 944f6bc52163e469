// A mixed campaign: chat rows in CSV and in JSONL, responses and video rows in JSONL, both JSONL forms,
// some videos with a reference video. Every prompt is unique across the campaign, so the simulator's
// ledger (keyed by prompt) names the row each request came from.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

export type RowKind = 'chat' | 'responses' | 'video';

export interface CampaignRow {
  id: string;
  kind: RowKind;
  /** The video prompt, or the chat/responses user text: the simulator's ledger key. */
  prompt: string;
}

export interface Campaign {
  /** The job file to pass to `gbatch run`. */
  jobFile: string;
  rows: CampaignRow[];
}

export interface CampaignSize {
  chat: number;
  responses: number;
  video: number;
}

export const MIXED_CAMPAIGN: CampaignSize = { chat: 12, responses: 4, video: 10 };

const CHAT_MODELS = ['chat-small', 'chat-large'] as const;
const VIDEO_SHAPES = [
  { model: 'video-fast', resolution: '480p', duration: 2 },
  { model: 'video-mini', resolution: '720p', duration: 1 },
  { model: 'video-pro', resolution: '480p', duration: 3 },
  { model: 'video-pro-2.5', resolution: '720p', duration: 2 },
] as const;

interface Written {
  row: CampaignRow;
  line: string;
}

const pad = (i: number): string => String(i).padStart(2, '0');

/** Even rows in the OpenAI Batch form, odd rows in the flat form. */
function jsonlLine(i: number, id: string, kind: RowKind, url: string, body: Record<string, unknown>): string {
  return JSON.stringify(i % 2 === 0 ? { custom_id: id, method: 'POST', url, body } : { id, kind, ...body });
}

function csvCell(text: string): string {
  return /[",\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

function chatRow(tag: string, i: number, form: 'csv' | 'jsonl'): Written {
  const id = `chat-${pad(i)}`;
  const prompt = `[${tag}] ${id}: name ${i} things, one "quoted", that never run twice`;
  const model = CHAT_MODELS[i % 2]!;
  const maxTokens = 8 + (i % 5) * 4;
  const system = i % 3 === 0 ? 'You are terse.' : undefined;
  const row: CampaignRow = { id, kind: 'chat', prompt };
  if (form === 'csv')
    return { row, line: [id, 'chat', model, csvCell(prompt), system ?? '', String(maxTokens)].join(',') };
  const messages = [...(system ? [{ role: 'system', content: system }] : []), { role: 'user', content: prompt }];
  return { row, line: jsonlLine(i, id, 'chat', '/v1/chat/completions', { model, messages, max_tokens: maxTokens }) };
}

function responsesRow(tag: string, i: number): Written {
  const id = `resp-${pad(i)}`;
  const prompt = `[${tag}] ${id}: list ${i + 1} checks before a video budget`;
  const body = { model: CHAT_MODELS[i % 2]!, input: prompt, max_output_tokens: 24 };
  return { row: { id, kind: 'responses', prompt }, line: jsonlLine(i, id, 'responses', '/v1/responses', body) };
}

function videoRow(tag: string, i: number): Written {
  const id = `video-${pad(i)}`;
  const prompt = `[${tag}] ${id}: a paper boat drifting down rainy street number ${i}`;
  const shape = VIDEO_SHAPES[i % VIDEO_SHAPES.length]!;
  const body: Record<string, unknown> = {
    model: shape.model,
    prompt,
    resolution: shape.resolution,
    duration: shape.duration,
  };
  // Never fetched by anyone: the simulator only counts it as a reference video.
  if (i % 3 === 0) body.video_url = `https://example.com/reference/${id}.mp4`;
  return { row: { id, kind: 'video', prompt }, line: jsonlLine(i, id, 'video', '/v1/video/generations', body) };
}

/**
 * Writes the manifests and the job file into `dir`; `tag` makes the prompts unique to this campaign.
 * The JSONL is listed first and alternates video and text rows, so every phase of a run mixes kinds.
 */
export function writeCampaign(dir: string, tag: string, size: CampaignSize = MIXED_CAMPAIGN): Campaign {
  const inCsv = Math.ceil(size.chat / 2);
  const csv = Array.from({ length: inCsv }, (_, k) => chatRow(tag, k + 1, 'csv'));
  const videos = Array.from({ length: size.video }, (_, k) => videoRow(tag, k + 1));
  const texts = [
    ...Array.from({ length: size.chat - inCsv }, (_, k) => chatRow(tag, inCsv + k + 1, 'jsonl')),
    ...Array.from({ length: size.responses }, (_, k) => responsesRow(tag, k + 1)),
  ];
  const jsonl: Written[] = [];
  for (let k = 0; k < Math.max(videos.length, texts.length); k++) {
    if (videos[k]) jsonl.push(videos[k]!);
    if (texts[k]) jsonl.push(texts[k]!);
  }
  writeFileSync(
    join(dir, 'text.csv'),
    ['id,kind,model,prompt,system,max_tokens', ...csv.map((w) => w.line), ''].join('\n'),
  );
  writeFileSync(join(dir, 'mixed.jsonl'), [...jsonl.map((w) => w.line), ''].join('\n'));
  const jobFile = join(dir, 'campaign.json');
  writeFileSync(jobFile, JSON.stringify({ name: `crash-${tag}`, manifest: ['mixed.jsonl', 'text.csv'] }, null, 2));
  return { jobFile, rows: [...jsonl, ...csv].map((w) => w.row) };
}
