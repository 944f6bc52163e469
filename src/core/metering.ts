// What an answer costs when the gateway's own count of it may be missing or unusable. Pure.
// An answer without a usable count is UNMETERED: booked at what was reserved for it (its bound),
// never at zero, so --budget keeps capping what the gateway can bill.

import { checkCharge } from './charge-check.js';
import type { Resolution } from './models.js';
import { settleChat, settleVideo, type ChatUsage, type PriceSnapshot } from './settlement.js';

export interface Metered {
  usd: number;
  totalTokens: number | null;
  unmetered: boolean;
  /** The pricing table's figure, where the gateway also reported its own charge to compare it with. */
  tableUsd?: number;
  /** gateway / table when the gateway charged more than the table (see checkCharge). */
  driftRatio?: number;
}

const TOKEN_FIELDS = ['prompt_tokens', 'completion_tokens', 'input_tokens', 'output_tokens', 'total_tokens'] as const;

const isCount = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value) && value >= 0;

/**
 * The usage of a chat/responses answer when it can be trusted: an object whose token fields, where
 * present, are all numbers >= 0, with an input and an output count. Anything else (missing, not an
 * object, negative, non-numeric, only a total, one side only) is undefined: the answer is unmetered.
 */
export function usableChatUsage(usage: unknown): ChatUsage | undefined {
  if (typeof usage !== 'object' || usage === null || Array.isArray(usage)) return undefined;
  const fields = usage as Record<string, unknown>;
  for (const field of TOKEN_FIELDS) {
    if (fields[field] !== undefined && !isCount(fields[field])) return undefined;
  }
  // Both sides are billed: a usage that counts only one leaves the other unknown, so the answer is unmetered.
  const input = isCount(fields.prompt_tokens) || isCount(fields.input_tokens);
  const output = isCount(fields.completion_tokens) || isCount(fields.output_tokens);
  return input && output ? (fields as ChatUsage) : undefined;
}

/** A chat/responses body: settled from its usage, or unmetered and booked at `reservedUsd`. */
export function meterChatAnswer(body: unknown, snapshot: PriceSnapshot, reservedUsd: number): Metered {
  const usage =
    typeof body === 'object' && body !== null ? usableChatUsage((body as { usage?: unknown }).usage) : undefined;
  if (usage === undefined) return { usd: reservedUsd, totalTokens: null, unmetered: true };
  const settled = settleChat(usage, snapshot);
  return { usd: settled.usd, totalTokens: settled.inputTokens + settled.outputTokens, unmetered: false };
}

/**
 * A video task that SUCCEEDED: settled from its final total_tokens and resolution, or at the gateway's
 * own reported charge when that is higher (its price list is authoritative); without tokens, at the
 * gateway's charge where it gives one; else unmetered, booked at `reservedUsd`.
 */
export function meterVideoSuccess(input: {
  totalTokens: number | undefined;
  finalResolution: string | undefined;
  gatewayChargeUsd: number | undefined;
  requestedResolution: Resolution;
  hasReferenceVideo: boolean;
  snapshot: PriceSnapshot;
  reservedUsd: number;
}): Metered {
  if (input.totalTokens !== undefined) {
    const { usd } = settleVideo({
      totalTokens: input.totalTokens,
      finalResolution: input.finalResolution,
      requestedResolution: input.requestedResolution,
      hasReferenceVideo: input.hasReferenceVideo,
      snapshot: input.snapshot,
    });
    if (input.gatewayChargeUsd === undefined) return { usd, totalTokens: input.totalTokens, unmetered: false };
    const check = checkCharge(usd, input.gatewayChargeUsd);
    return {
      usd: check.bookedUsd,
      totalTokens: input.totalTokens,
      unmetered: false,
      tableUsd: usd,
      ...(check.driftRatio !== undefined ? { driftRatio: check.driftRatio } : {}),
    };
  }
  if (input.gatewayChargeUsd !== undefined) return { usd: input.gatewayChargeUsd, totalTokens: null, unmetered: false };
  return { usd: input.reservedUsd, totalTokens: null, unmetered: true };
}
