// A mixed campaign (chat rows in CSV, responses and video rows in JSONL, both manifest forms), each row
// with a prompt unique across the campaign so the simulator's ledger can name the row a request came from.
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
  byPrompt: Map<string, CampaignRow>;
}

export interface CampaignSize { chat: number; responses: number; video: number }

export const MIXED_CAMPAIGN: CampaignSize = { chat: 12, responses: 4, video: 10 };

const CHAT_MODELS = ['chat-small', 'chat-large'] as const;
const VIDEO_SHAPES = [
  { model: 'video-fast', resolution: '480p', duration: 2 },
  { model: 'video-mini', resolution: '720p', duration: 1 },
  { model: 'video-pro', resolution: '480p', duration: 3 },
  { model: 'video-pro-2.5', resolution: '720p', duration: 2 },
] as const;

function csvCell(text: string): string {
  return /[",\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/**
 * Writes the manifests and the job file into `dir`; `tag` makes the prompts unique to this campaign.
 * The JSONL comes first and interleaves video with text rows, so every phase of a run mixes kinds.
 */
export function writeCampaign(dir: string, tag: string, size: CampaignSize = MIXED_CAMPAIGN): Campaign {
  const csvChat = Math.ceil(size.chat / 2);
  const csv = ['id,kind,model,prompt,system,max_tokens'];
  const csvRows: CampaignRow[] = [];
  const jsonl: string[] = [];
  const jsonlRows: CampaignRow[] = [];
  const chat = (i: number): void => {
    const id = `chat-${String(i).padStart(2, '0')}`;
    const prompt = `[${tag}] ${id}: name ${i} things, one "quoted", that never run twice`;
    const model = CHAT_MODELS[i % 2]!;
    const maxTokens = 8 + (i % 5) * 4;
    const system = i % 3 === 0 ? 'You are terse.' : undefined;
    if (i <= csvChat) {
      csv.push([id, 'chat', model, csvCell(prompt), system ?? '', String(maxTokens)].join(','));
      csvRows.push({ id, kind: 'chat', prompt });
      return;
    }
    const messages = [...(system ? [{ role: 'system', content: system }] : []), { role: 'user', content: prompt }];
    const body = { model, messages, max_tokens: maxTokens };
    jsonl.push(JSON.stringify(i % 2 === 0
      ? { custom_id: id, method: 'POST', url: '/v1/chat/completions', body }
      : { id, kind: 'chat', ...body }));
    jsonlRows.push({ id, kind: 'chat', prompt });
  };
  const responses = (i: number): void => {
    const id = `resp-${String(i).padStart(2, '0')}`;
    const prompt = `[${tag}] ${id}: list ${i + 1} checks before a video budget`;
    const body = { model: CHAT_MODELS[i % 2]!, input: prompt, max_output_tokens: 24 };
    jsonl.push(JSON.stringify(i % 2 === 0
      ? { custom_id: id, method: 'POST', url: '/v1/responses', body }
      : { id, kind: 'responses', ...body }));
    jsonlRows.push({ id, kind: 'responses', prompt });
  };
  const video = (i: number): void => {
    const id = `video-${String(i).padStart(2, '0')}`;
    const prompt = `[${tag}] ${id}: a paper boat drifting down rainy street number ${i}`;
    const shape = VIDEO_SHAPES[i % VIDEO_SHAPES.length]!;
    const body: Record<string, unknown> = { model: shape.model, prompt, resolution: shape.resolution, duration: shape.duration };
    // Never fetched by anyone: the simulator only counts it as a reference video.
    if (i % 3 === 0) body.video_url = `https://example.com/reference/${id}.mp4`;
    jsonl.push(JSON.stringify(i % 2 === 0
      ? { custom_id: id, method: 'POST', url: '/v1/video/generations', body }
      : { id, kind: 'video', ...body }));
    jsonlRows.push({ id, kind: 'video', prompt });
  };
  for (let i = 1; i <= csvChat; i++) chat(i);
  const textInJsonl = [
    ...Array.from({ length: size.chat - csvChat }, (_, k) => () => chat(csvChat + k + 1)),
    ...Array.from({ length: size.responses }, (_, k) => () => responses(k + 1)),
  ];
  for (let v = 1, t = 0; v <= size.video || t < textInJsonl.length; v++) {
    if (v <= size.video) video(v);
    if (t < textInJsonl.length) textInJsonl[t++]!();
  }
  writeFileSync(join(dir, 'text.csv'), `${csv.join('\n')}\n`);
  writeFileSync(join(dir, 'mixed.jsonl'), `${jsonl.join('\n')}\n`);
  const jobFile = join(dir, 'campaign.json');
  writeFileSync(jobFile, JSON.stringify({ name: `crash-${tag}`, manifest: ['mixed.jsonl', 'text.csv'] }, null, 2));
  const rows = [...jsonlRows, ...csvRows];
  return { jobFile, rows, byPrompt: new Map(rows.map((row) => [row.prompt, row])) };
}
