// The video endpoints: submit (4), poll (5) and content (6). Errors of 4 and 5 use the task envelope,
// those of 6 the general one (spec 7.2).

import type { Handler } from '../context.js';
import { generalError, taskError } from '../errors.js';
import { denyModel, videoModel } from '../model-access.js';
import { json, type Reply } from '../reply.js';
import { shapeA, shapeB } from '../task-view.js';
import { checkRequiredModel, isObject } from '../validate/fields.js';
import { validateVideoRequest } from '../validate/video.js';

function invalidRequest(message: string, param: string | null): Reply {
  return taskError(400, 'invalid_request', message, param === null ? null : { param });
}

export const submitHandler: Handler = (ctx, call): Reply => {
  const body = call.body;
  if (!isObject(body)) return invalidRequest('The request body must be a JSON object', null);
  const missing = checkRequiredModel(body);
  if (missing) return invalidRequest(missing.message, 'model');
  const denied = denyModel(call.account, body.model as string, 'video');
  if (denied) return taskError(denied.status, denied.code, denied.message, { param: 'model' });
  const model = videoModel(body.model as string);

  const request = validateVideoRequest(body, model);
  if ('param' in request) return invalidRequest(request.message, request.param);

  const draft = { model, ...request };
  const quote = ctx.tasks.quote(draft);
  ctx.tasks.settleDue();
  if (call.account.balanceUsd < quote.usd) {
    return taskError(
      402,
      'insufficient_quota',
      `Insufficient balance: this task reserves ${quote.usd.toFixed(6)} USD; nothing was kept`,
      null,
    );
  }
  const task = ctx.tasks.create(call.account, draft, quote);
  return json({
    id: task.id,
    task_id: task.id,
    object: 'video',
    model: task.model,
    status: 'queued',
    progress: 0,
    created_at: Math.floor(task.submittedAt / 1000),
  });
};

export const pollHandler: Handler = (ctx, call): Reply => {
  const view = call.taskId === undefined ? undefined : ctx.tasks.viewFor(call.account, call.taskId);
  if (!view) return taskError(404, 'task_not_found', 'Task not found', null);
  return json(ctx.options.shape === 'b' ? shapeB(view, ctx.origin) : shapeA(view, ctx.origin));
};

export const contentHandler: Handler = (ctx, call): Reply => {
  const view = call.taskId === undefined ? undefined : ctx.tasks.viewFor(call.account, call.taskId);
  if (!view) return generalError(404, 'Task not found', 'invalid_request_error', 'task_id', 'task_not_found');
  if (view.state !== 'SUCCESS') {
    return generalError(
      400,
      `The task is not ready for download (status ${view.state})`,
      'invalid_request_error',
      'task_id',
      'task_not_ready',
    );
  }
  return { kind: 'video', body: ctx.video, truncate: ctx.random.chance(ctx.faults().truncateDownloadRate) };
};
