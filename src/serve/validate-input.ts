// A batch's input file checked as `plan` checks a manifest (the same reader and validation, row by row),
// plus the Batch API's own rule: every line's url is the batch's endpoint. Nothing is sent.
import type { PricingTable } from '../core/pricing.js';
import { scanManifests } from '../ingest/scan-manifests.js';
import { BATCH_URLS } from '../manifest/jsonl-line.js';
import { printable } from '../core/printable.js';
import { billBound, boundedRequest } from '../core/bound.js';
import { formatUsd } from '../core/money.js';

export interface LineError {
  code: string;
  message: string;
  param: string | null;
  line: number;
}

export interface InputCheck {
  requests: number;
  errors: LineError[];
  /** The model of the first request: what OpenAI's batch object shows as `model`. */
  model: string | null;
}

/** OpenAI's limit on the requests of one batch's input. */
export const MAX_BATCH_REQUESTS = 50_000;

/** The most errors a batch keeps (OpenAI's own list is short too); `requests` counts every line. */
const MAX_ERRORS = 1000;
const MAX_MESSAGE = 500;

/**
 * `budgetUsd`: the batch's metadata.budget_usd. A request whose bound (what it reserves: the most the gateway can
 * bill it, spec 8.3) is above it could never be sent: the batch is refused with a line saying so.
 */
export async function checkInput(
  path: string,
  endpoint: string,
  pricing: PricingTable,
  budgetUsd?: number,
): Promise<InputCheck> {
  const errors: LineError[] = [];
  const add = (error: LineError): void => {
    if (errors.length < MAX_ERRORS) errors.push({ ...error, message: printable(error.message).slice(0, MAX_MESSAGE) });
  };
  let summary;
  let model: string | null = null;
  try {
    summary = await scanManifests([path], pricing, {
      valid: ({ row, estimate }) => {
        model ??= row.model;
        if (budgetUsd !== undefined) {
          const bound = Math.max(
            estimate.usd,
            billBound(row.kind, boundedRequest(row.kind, row.request).request, pricing),
          );
          if (bound > budgetUsd)
            add({
              code: 'budget_below_bound',
              message:
                `line ${row.line}: the request reserves its bound ${formatUsd(bound)} (the most the gateway can bill it, ` +
                `e.g. at a dearer final resolution) but metadata.budget_usd is ${formatUsd(budgetUsd, 2)}: it could ` +
                `never be sent; a budget_usd of at least ${formatUsd(Math.ceil(bound * 100) / 100, 2)} sends it`,
              param: 'metadata.budget_usd',
              line: row.line,
            });
        }
        if (BATCH_URLS[endpoint] !== row.kind)
          add({
            code: 'invalid_request',
            message: `line ${row.line}: the request's url does not match the batch's endpoint ${endpoint}`,
            param: 'url',
            line: row.line,
          });
      },
      invalid: (entry) => {
        for (const e of entry.errors)
          add({
            code: 'invalid_request',
            message: `line ${e.line}${e.field === undefined ? '' : ` field '${e.field}'`}: ${e.reason}`,
            param: e.field ?? null,
            line: e.line,
          });
      },
    });
  } catch (err) {
    return {
      requests: 0,
      errors: [{ code: 'invalid_file', message: fileMessage(err, path), param: null, line: 0 }],
      model: null,
    };
  }
  if (summary.rows === 0) add({ code: 'empty_file', message: 'the input file holds no request', param: null, line: 0 });
  if (summary.rows > MAX_BATCH_REQUESTS)
    errors.unshift({
      code: 'too_many_requests',
      message: `the input file holds ${summary.rows} requests: a batch takes at most ${MAX_BATCH_REQUESTS}`,
      param: null,
      line: 0,
    });
  return { requests: summary.rows, errors, model };
}

/** The reader's message without the server's own path of the file. */
function fileMessage(err: unknown, path: string): string {
  return printable((err as Error).message.split(path).join('the input file')).slice(0, MAX_MESSAGE);
}
