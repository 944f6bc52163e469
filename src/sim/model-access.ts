// Whether the account may use a model for this kind of request. A model the account is not given is
// "forbidden" (spec 5.3 names no status; the simulator answers 403).

import { CHAT_MODELS, findVideoModel, type VideoModel } from '../core/models.js';
import type { Account } from './accounts.js';
import { ALL_MODELS } from './accounts.js';

export type ModelDenied = { status: 400 | 403; code: string; message: string };

export function denyModel(account: Account, model: string, wants: 'text' | 'video'): ModelDenied | undefined {
  if (!ALL_MODELS.includes(model)) {
    return {
      status: 400,
      code: 'model_not_found',
      message: `The model '${model}' does not exist; list the models with GET /v1/models`,
    };
  }
  if (!account.models.has(model)) {
    return {
      status: 403,
      code: 'model_not_allowed',
      message: `This account is not allowed to use the model '${model}'`,
    };
  }
  const isVideo = findVideoModel(model) !== undefined;
  if (wants === 'video' && !isVideo) {
    return { status: 400, code: 'unsupported_model', message: `The model '${model}' does not generate video` };
  }
  if (wants === 'text' && !CHAT_MODELS.includes(model)) {
    return {
      status: 400,
      code: 'unsupported_model',
      message: `The model '${model}' does not serve chat or responses requests`,
    };
  }
  return undefined;
}

export function videoModel(id: string): VideoModel {
  const model = findVideoModel(id);
  if (!model) throw new Error(`not a video model: ${id}`);
  return model;
}
