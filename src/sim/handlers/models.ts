// GET /v1/models: the account's models in the OpenAI list format (spec 2.1, 2.2).

import type { Handler } from '../context.js';
import { json } from '../reply.js';

/** A fixed creation time, so answers are the same on every run. */
const CREATED = 1_735_689_600;

export const modelsHandler: Handler = (_ctx, call) =>
  json({
    object: 'list',
    data: call.account.modelList.map((id) => ({ id, object: 'model', created: CREATED, owned_by: 'gbatch-sim' })),
  });
