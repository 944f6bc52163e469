// The Batches API: create (the input checked in the background, as `validating`), retrieve (live counts
// from the job's journal), list (newest first, paged by `after`), cancel. Another client's batch is 404.
import { positiveKnob } from '../core/test-knob.js';
import { BATCH_URLS } from '../manifest/jsonl-line.js';
import { jobCounts, requestCounts } from './batch-journal.js';
import { batchObject, batchOf, rowOf, windowSeconds, type Batch } from './batch-record.js';
import { canMove, isRunning } from './batch-states.js';
import { seconds, type ServeContext } from './context.js';
import { expiresAfterSeconds } from './file-params.js';
import { newBatchId } from './ids.js';
import { ApiFailure, apiError, notFound } from './openai-error.js';
import type { BatchScheduler } from './scheduler.js';

/** OpenAI's limit on a batch's input file: 200 MB. */
export const MAX_INPUT_BYTES = 200 * 1024 * 1024;
const MAX_METADATA_KEYS = 16;
const MAX_KEY = 64;
const MAX_VALUE = 512;

export class BatchesApi {
  /** A minute of completion_window, in seconds (tests shorten it to see a batch expire). */
  private readonly minuteS: number;

  constructor(
    private readonly ctx: ServeContext,
    private readonly scheduler: BatchScheduler,
  ) {
    this.minuteS = positiveKnob(ctx.env, 'GBATCH_SERVE_TEST_MINUTE_S', 60);
  }

  async create(owner: string, body: unknown): Promise<Record<string, unknown>> {
    const params = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
    const endpoint = params.endpoint;
    if (typeof endpoint !== 'string' || !Object.hasOwn(BATCH_URLS, endpoint))
      throw bad(`Expected endpoint to be one of ${Object.keys(BATCH_URLS).join(', ')}`, 'endpoint');
    const window = windowSeconds(params.completion_window, this.minuteS);
    if (window === undefined)
      throw bad(
        "Expected completion_window to be '24h' or a number of hours or minutes ('2h', '30m')",
        'completion_window',
      );
    const metadata = checkMetadata(params.metadata);
    const budget = metadata?.budget_usd;
    if (budget !== undefined && !/^\d{1,9}(\.\d{1,9})?$/.test(budget))
      throw bad("Expected metadata.budget_usd to be a decimal string of USD, as '2.50'", 'metadata');
    const inputId = params.input_file_id;
    if (typeof inputId !== 'string') throw bad('Expected input_file_id', 'input_file_id');
    const input = await this.ctx.catalog.file(inputId);
    const expiresAt = input?.record.expires_at;
    if (!input || input.owner !== owner || (typeof expiresAt === 'number' && expiresAt * 1000 <= this.ctx.now()))
      throw new ApiFailure(notFound('file', inputId));
    if (input.record.purpose !== 'batch')
      throw bad(`File ${inputId} was not uploaded with purpose 'batch'`, 'input_file_id');
    if (Number(input.record.bytes) > MAX_INPUT_BYTES)
      throw bad(
        `File ${inputId} is ${String(input.record.bytes)} bytes: a batch's input may be at most ${MAX_INPUT_BYTES}`,
        'input_file_id',
      );
    const outputExpiry = outputExpiresAfter(params.output_expires_after);
    const now = seconds(this.ctx.now());
    const batch: Batch = {
      id: newBatchId(),
      owner,
      status: 'validating',
      createdAt: now,
      fields: {
        input_file_id: inputId,
        endpoint,
        completion_window: params.completion_window as string,
        metadata: metadata ?? null,
        errors: null,
        in_progress_at: null,
        expires_at: now + window,
        finalizing_at: null,
        completed_at: null,
        failed_at: null,
        expired_at: null,
        cancelling_at: null,
        cancelled_at: null,
        output_file_id: null,
        error_file_id: null,
        request_counts: { total: 0, completed: 0, failed: 0 },
        budget_usd: budget === undefined ? null : Number(budget),
        output_expires_after_s: outputExpiry ?? null,
      },
    };
    await this.ctx.catalog.addBatch(rowOf(batch));
    this.scheduler.start(batch.id);
    return batchObject(batch);
  }

  async retrieve(owner: string, id: string): Promise<Record<string, unknown>> {
    const batch = await this.owned(owner, id);
    return this.shown(batch);
  }

  async list(owner: string, limit: number, after: string | undefined): Promise<Record<string, unknown>> {
    const rows = await this.ctx.catalog.batches(owner, { limit: limit + 1, ...(after ? { after } : {}) });
    const data = await Promise.all(rows.slice(0, limit).map((row) => this.shown(batchOf(row))));
    return {
      object: 'list',
      data,
      // Strings, as OpenAI's schema types them: an empty page's are empty.
      first_id: data[0]?.id ?? '',
      last_id: data.at(-1)?.id ?? '',
      has_more: rows.length > limit,
    };
  }

  async cancel(owner: string, id: string): Promise<Record<string, unknown>> {
    const batch = await this.owned(owner, id);
    if (!canMove(batch.status, 'cancel') && batch.status !== 'cancelling') throw notCancellable(batch.status);
    const answer = await this.scheduler.cancel(batch);
    // It moved on meanwhile (its requests all ended): the cancel is turned down as for a batch read so.
    if (answer.status !== 'cancelling') throw notCancellable(answer.status);
    return this.shown(answer);
  }

  private async owned(owner: string, id: string): Promise<Batch> {
    const row = await this.ctx.catalog.batch(id);
    if (!row || row.owner !== owner) throw new ApiFailure(notFound('batch', id));
    return batchOf(row);
  }

  /** While the batch runs, its counts are the journal's, now. */
  private async shown(batch: Batch): Promise<Record<string, unknown>> {
    if (!isRunning(batch.status)) return batchObject(batch);
    const counts = await jobCounts(this.ctx, batch.id);
    return batchObject(batch, counts && requestCounts(counts, batch.fields.request_counts.total));
  }
}

const bad = (message: string, param: string): ApiFailure => new ApiFailure(apiError(400, message, { param }));

/**
 * A batch past cancelling: 400, which a client SDK does not retry (it retries 408, 409, 429 and 5xx), so a
 * cancel of a finished batch is one request, and the status it names says why.
 */
const notCancellable = (status: string): ApiFailure =>
  new ApiFailure(apiError(400, `Cannot cancel a batch with status '${status}'.`, { code: 'batch_not_cancellable' }));

function checkMetadata(value: unknown): Record<string, string> | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'object' || Array.isArray(value))
    throw bad('Expected metadata to be an object of strings', 'metadata');
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length > MAX_METADATA_KEYS) throw bad(`Expected at most ${MAX_METADATA_KEYS} metadata keys`, 'metadata');
  for (const [key, entry] of entries) {
    if (typeof entry !== 'string' || key.length > MAX_KEY || entry.length > MAX_VALUE)
      throw bad(
        `Expected metadata values to be strings of at most ${MAX_VALUE} characters (keys ${MAX_KEY})`,
        'metadata',
      );
  }
  return value as Record<string, string>;
}

/** `output_expires_after` ({anchor: 'created_at', seconds}) as OpenAI takes it: the seconds, or undefined. */
function outputExpiresAfter(value: unknown): number | undefined {
  if (value === undefined || value === null) return undefined;
  const given = (typeof value === 'object' ? value : {}) as Record<string, unknown>;
  const seconds = given.seconds;
  return expiresAfterSeconds(
    typeof given.anchor === 'string' ? given.anchor : undefined,
    typeof seconds === 'number' || typeof seconds === 'string' ? String(seconds) : undefined,
    'output_expires_after',
  );
}
