// What chat and responses share: the body and model checks, and charging the account per call.

import type { Account } from '../accounts.js';
import type { SimContext } from '../context.js';
import { GATEWAY_ERROR_TYPE, generalError } from '../errors.js';
import { denyModel } from '../model-access.js';
import type { Reply } from '../reply.js';
import { chatUsd } from '../tokens.js';
import { checkRequiredModel, isObject, type Body, type Invalid } from '../validate/fields.js';

export function badRequest(problem: Invalid): Reply {
  return generalError(400, problem.message, 'invalid_request_error', problem.param, problem.code);
}

export type TextRequest = { ok: true; body: Body; model: string } | { ok: false; reply: Reply };

/**
 * The body as an object with a model the account may use for text, its other fields checked by
 * `validate`; or the error to answer.
 */
export function textRequest(
  account: Account,
  body: unknown,
  validate: (body: Body) => Invalid | undefined,
): TextRequest {
  if (!isObject(body)) {
    return {
      ok: false,
      reply: generalError(
        400,
        'The request body must be a JSON object',
        'invalid_request_error',
        null,
        'invalid_request',
      ),
    };
  }
  const missing = checkRequiredModel(body);
  if (missing) return { ok: false, reply: badRequest(missing) };
  const model = body.model as string;
  const denied = denyModel(account, model, 'text');
  if (denied) {
    const type = denied.status === 403 ? GATEWAY_ERROR_TYPE : 'invalid_request_error';
    return { ok: false, reply: generalError(denied.status, denied.message, type, 'model', denied.code) };
  }
  const problem = validate(body);
  if (problem) return { ok: false, reply: badRequest(problem) };
  return { ok: true, body, model };
}

/** Charges the call, or answers 402 when the balance cannot cover it (nothing charged). */
export function chargeText(
  ctx: SimContext,
  account: Account,
  model: string,
  promptTokens: number,
  completionTokens: number,
  lastUserText: string,
): Reply | undefined {
  const price = ctx.prices.chatPrice(model);
  const usd = price ? chatUsd(promptTokens, completionTokens, price, ctx.prices.groupRatio) : 0;
  ctx.tasks.settleDue();
  if (account.balanceUsd < usd) {
    return generalError(
      402,
      `Insufficient balance: this call costs ${usd.toFixed(6)} USD`,
      GATEWAY_ERROR_TYPE,
      null,
      'insufficient_quota',
    );
  }
  ctx.ledger.recordCharge({ at: ctx.clock.now(), account: account.name, kind: 'chat', usd });
  ctx.ledger.countSubmission(lastUserText);
  return undefined;
}
