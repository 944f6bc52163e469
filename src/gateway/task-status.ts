// One view of a video task, whichever polling shape (spec 2.11) the gateway answers with. Pure.

export type TaskPhase = 'pending' | 'running' | 'succeeded' | 'failed';

export interface TaskStatus {
  taskId: string;
  phase: TaskPhase;
  /** The status word exactly as the gateway said it. */
  rawStatus: string;
  /** 0..100, from `"<n>%"` (or a bare number). */
  progress?: number;
  resultUrl?: string;
  failReason?: string;
  /** Final tokens: `data.data.usage.total_tokens` (A) or `metadata.usage.total_tokens` / `usage.total_tokens` (B). */
  totalTokens?: number;
  /** Final output resolution: `data.data.resolution` (A) or `metadata.resolution` (B). */
  finalResolution?: string;
  /** The gateway's own charge where it reports one (new-api `data.quota`, 500,000 quota = 1 USD). */
  gatewayChargeUsd?: number;
}

/** new-api's quota unit: 500,000 quota = 1 USD. */
export const QUOTA_PER_USD = 500_000;

const PHASES: Readonly<Record<string, TaskPhase>> = {
  not_start: 'pending',
  submitted: 'pending',
  queued: 'pending',
  unknown: 'pending',
  in_progress: 'running',
  success: 'succeeded',
  completed: 'succeeded',
  failure: 'failed',
  failed: 'failed',
};

/** Unknown words are never terminal: the gateway itself fails (and refunds) tasks that never end. */
export function phaseOf(rawStatus: string): TaskPhase {
  return PHASES[rawStatus.trim().toLowerCase()] ?? 'pending';
}

type JsonObject = Record<string, unknown>;

function isRecord(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
}

function nonNegativeNumber(value: unknown): number | undefined {
  const n = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
  return Number.isFinite(n) && n >= 0 ? n : undefined;
}

function parseProgress(value: unknown): number | undefined {
  const raw = typeof value === 'string' ? value.trim().replace(/%$/, '') : value;
  const n = nonNegativeNumber(raw);
  return n === undefined ? undefined : Math.min(100, n);
}

function totalTokensOf(usage: unknown): number | undefined {
  return isRecord(usage) ? nonNegativeNumber(usage['total_tokens']) : undefined;
}

function errorText(value: unknown): string | undefined {
  if (isRecord(value)) return text(value['message']) ?? text(value['code']);
  return text(value);
}

/** Drops undefined fields so the result compares cleanly and serialises without noise. */
function compact(status: TaskStatus): TaskStatus {
  return Object.fromEntries(Object.entries(status).filter(([, v]) => v !== undefined)) as unknown as TaskStatus;
}

/** Where a shape keeps each field; read into a TaskStatus the same way for both shapes. */
interface ShapeFields {
  status: unknown;
  progress: unknown;
  quota: unknown;
  resultUrl: string | undefined;
  failReason: string | undefined;
  totalTokens: number | undefined;
  finalResolution: string | undefined;
}

function taskStatusOf(taskId: string, { status, progress, quota, ...found }: ShapeFields): TaskStatus {
  const rawStatus = String(status);
  const quotaUnits = nonNegativeNumber(quota);
  return compact({
    taskId,
    phase: phaseOf(rawStatus),
    rawStatus,
    progress: parseProgress(progress),
    ...found,
    gatewayChargeUsd: quotaUnits === undefined ? undefined : quotaUnits / QUOTA_PER_USD,
  });
}

function fromShapeA(task: JsonObject, taskId: string, root: JsonObject): TaskStatus {
  const upstream = isRecord(task['data']) ? task['data'] : {};
  return taskStatusOf(taskId, {
    status: task['status'],
    progress: task['progress'],
    quota: task['quota'] ?? root['quota'],
    resultUrl: text(task['result_url']) ?? text(upstream['url']),
    failReason: text(task['fail_reason']) ?? errorText(upstream['error']),
    totalTokens: totalTokensOf(upstream['usage']),
    finalResolution: text(upstream['resolution']),
  });
}

function fromShapeB(body: JsonObject, taskId: string): TaskStatus {
  const metadata = isRecord(body['metadata']) ? body['metadata'] : {};
  return taskStatusOf(taskId, {
    status: body['status'],
    progress: body['progress'],
    quota: body['quota'],
    resultUrl: text(body['url']) ?? text(body['result_url']),
    failReason: errorText(body['error']) ?? text(body['fail_reason']),
    totalTokens: totalTokensOf(metadata['usage']) ?? totalTokensOf(body['usage']),
    finalResolution: text(metadata['resolution']) ?? text(body['resolution']),
  });
}

/**
 * Normalises a polling answer. Shape A: `{code:'success', data:{status, progress, result_url, ...}}`;
 * Shape B: `{task_id, status, url, error, metadata}`. Throws on a body that is neither.
 */
export function normaliseTaskStatus(json: unknown, taskId: string): TaskStatus {
  if (isRecord(json)) {
    const data = json['data'];
    if (isRecord(data) && typeof data['status'] === 'string') return fromShapeA(data, taskId, json);
    if (typeof json['status'] === 'string') return fromShapeB(json, taskId);
  }
  throw new Error(`task ${taskId}: the status answer is neither of the documented shapes (spec 2.11)`);
}
