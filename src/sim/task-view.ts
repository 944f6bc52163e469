// The polling answer (spec 2.11) in Shape A, new-api's task wrapper, or Shape B, the schema's flat form.

import type { TaskRecord, TaskState } from './ledger.js';
import type { TaskView } from './task-book.js';
import { usdToQuota } from './tokens.js';

export const FAIL_REASON = 'Simulated upstream failure; the reserved amount was refunded';

/** Where the video of a task can be fetched: endpoint 6 on the same origin (needs the same key). */
export function resultUrl(origin: string, taskId: string): string {
  return `${origin}/v1/videos/${encodeURIComponent(taskId)}/content`;
}

const UPSTREAM_STATUS: Record<TaskState, string> = {
  NOT_START: 'queued',
  QUEUED: 'queued',
  IN_PROGRESS: 'in_progress',
  SUCCESS: 'completed',
  FAILURE: 'failed',
};

const SHAPE_B_STATUS: Record<TaskState, string> = {
  NOT_START: 'unknown',
  QUEUED: 'queued',
  IN_PROGRESS: 'in_progress',
  SUCCESS: 'completed',
  FAILURE: 'failed',
};

function seconds(ms: number): number {
  return Math.floor(ms / 1000);
}

/** The upstream result object: final usage and resolution once SUCCESS. */
function upstreamResult(state: TaskState, task: TaskRecord): Record<string, unknown> {
  if (state === 'SUCCESS') {
    return {
      status: 'completed',
      usage: { total_tokens: task.totalTokens },
      resolution: task.finalResolution,
      seconds: task.seconds,
    };
  }
  const out: Record<string, unknown> = {
    status: UPSTREAM_STATUS[state],
    resolution: task.requestedResolution,
    seconds: task.seconds,
  };
  if (state === 'FAILURE') out.error = { message: FAIL_REASON };
  return out;
}

export function shapeA(view: TaskView, origin: string): unknown {
  const task = view.record;
  const done = view.state === 'SUCCESS' || view.state === 'FAILURE';
  const data: Record<string, unknown> = {
    task_id: task.id,
    status: view.state,
    progress: `${view.progress}%`,
    submit_time: seconds(task.submittedAt),
    finish_time: done ? seconds(task.endsAt) : 0,
    fail_reason: view.state === 'FAILURE' ? FAIL_REASON : '',
    quota: usdToQuota(task.chargedUsd),
    data: upstreamResult(view.state, task),
  };
  if (view.state === 'SUCCESS') data.result_url = resultUrl(origin, task.id);
  return { code: 'success', message: '', data };
}

export function shapeB(view: TaskView, origin: string): unknown {
  const task = view.record;
  const out: Record<string, unknown> = {
    id: task.id,
    task_id: task.id,
    object: 'video',
    model: task.model,
    status: SHAPE_B_STATUS[view.state],
    progress: view.progress,
    created_at: seconds(task.submittedAt),
    metadata: { resolution: task.requestedResolution, seconds: task.seconds },
    error: null,
  };
  if (view.state === 'SUCCESS') {
    out.url = resultUrl(origin, task.id);
    out.format = 'mp4';
    out.completed_at = seconds(task.endsAt);
    out.metadata = {
      resolution: task.finalResolution,
      seconds: task.seconds,
      usage: { total_tokens: task.totalTokens },
    };
  }
  if (view.state === 'FAILURE') out.error = { message: FAIL_REASON, code: 'upstream_failed' };
  return out;
}
