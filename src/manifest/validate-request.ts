// Checks one request body against its kind's schema, the cross-field rules and the pricing table.
import type { z } from 'zod';
import { normaliseResolution } from '../core/models.js';
import type { PricingTable } from '../core/pricing.js';
import type { ItemKind } from '../core/states.js';
import { REQUEST_SCHEMAS, videoSeconds } from './request-schemas.js';
import { quote, type RowIssue } from './types.js';

/** Every problem of the request, not just the first; empty when it may be sent. */
export function validateRequest(kind: ItemKind, request: Record<string, unknown>, pricing: PricingTable): RowIssue[] {
  const parsed = REQUEST_SCHEMAS[kind].safeParse(request, { reportInput: true });
  const issues = parsed.success ? [] : parsed.error.issues.map(issueToRowIssue);
  if (kind === 'video') issues.push(...durationConflict(request));
  const failed = new Set(issues.length > 0 ? issues.map((i) => i.field) : undefined);
  if (typeof request.model === 'string' && !failed.has('model')) {
    issues.push(
      ...(kind === 'video' ? videoPricingIssues(request, pricing, failed) : chatPricingIssues(request.model, pricing)),
    );
  }
  return issues;
}

function issueToRowIssue(issue: z.core.$ZodIssue): RowIssue {
  const field = fieldPath(issue.path);
  if (!('input' in issue) || issue.input === undefined) return { field, reason: 'is required' };
  return { field, reason: `${issue.message}, got ${describe(issue.input)}` };
}

/** `messages[0].role` style paths. */
export function fieldPath(path: readonly PropertyKey[]): string | undefined {
  let out = '';
  for (const part of path) out += typeof part === 'number' ? `[${part}]` : `${out ? '.' : ''}${String(part)}`;
  return out || undefined;
}

/** A short, unambiguous rendering of a user value for an error message. */
export function describe(value: unknown): string {
  if (typeof value === 'string') return quote(value.length > 60 ? `${value.slice(0, 60)}…` : value);
  if (value === null) return 'null';
  if (Array.isArray(value)) return value.length === 0 ? 'an empty array' : 'an array';
  if (typeof value === 'object') return 'an object';
  return String(value);
}

function durationConflict(request: Record<string, unknown>): RowIssue[] {
  const duration = videoSeconds(request.duration);
  const seconds = videoSeconds(request.seconds);
  if (duration === undefined || seconds === undefined || duration === seconds) return [];
  return [
    {
      field: 'seconds',
      reason: `is an alias of duration and must agree with it: duration is ${duration}, seconds is ${seconds}`,
    },
  ];
}

function missingPrice(model: string, otherTable: Record<string, unknown>, otherKind: string): RowIssue {
  const hint = Object.hasOwn(otherTable, model) ? ` (it is priced as a ${otherKind} model)` : '';
  return {
    field: 'model',
    reason: `no price for model ${quote(model)} in the pricing table${hint}; add it with --pricing`,
  };
}

function chatPricingIssues(model: string, pricing: PricingTable): RowIssue[] {
  return Object.hasOwn(pricing.chat, model) ? [] : [missingPrice(model, pricing.video, 'video')];
}

/**
 * Why the table cannot price a row the journal already holds (its model under its kind and, for video,
 * the resolution it is billed at): the same rule and words as for a manifest row; undefined when it can.
 */
export function heldRowPriceIssue(
  kind: ItemKind,
  model: string,
  resolution: string | null,
  pricing: PricingTable,
): RowIssue | undefined {
  if (kind !== 'video') return chatPricingIssues(model, pricing)[0];
  const rates = Object.hasOwn(pricing.video, model) ? pricing.video[model] : undefined;
  if (!rates) return missingPrice(model, pricing.chat, 'chat');
  const supported = Object.keys(rates).filter((r) => rates[r as keyof typeof rates] !== undefined);
  if (resolution !== null && supported.includes(resolution)) return undefined;
  return {
    field: 'resolution',
    reason: `${resolution === null ? 'none' : quote(resolution)} has no price for model ${quote(model)} in the pricing table (priced: ${supported.join(', ') || 'none'}); add it with --pricing`,
  };
}

function videoPricingIssues(
  request: Record<string, unknown>,
  pricing: PricingTable,
  failed: Set<string | undefined>,
): RowIssue[] {
  const model = request.model as string;
  const rates = Object.hasOwn(pricing.video, model) ? pricing.video[model] : undefined;
  if (!rates) return [missingPrice(model, pricing.chat, 'chat')];
  const supported = Object.keys(rates).filter((r) => rates[r as keyof typeof rates] !== undefined);
  const list = supported.join(', ');
  if (request.resolution === undefined) {
    // Billing counts an omitted resolution as 720p (spec 2.9); without that rate no estimate is possible.
    return supported.includes('720p')
      ? []
      : [
          {
            field: 'resolution',
            reason: `is required for model ${quote(model)}: an omitted resolution is billed as 720p, which its pricing entry lacks (supported: ${list})`,
          },
        ];
  }
  if (failed.has('resolution')) return [];
  const normalised = normaliseResolution(request.resolution);
  if (normalised !== undefined && supported.includes(normalised)) return [];
  return [
    {
      field: 'resolution',
      reason: `${describe(request.resolution)} is not supported by model ${quote(model)}; supported: ${list}`,
    },
  ];
}
