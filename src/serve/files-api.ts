// The Files API: uploads (streamed to disk, then the catalog), and the files derived from batches (their
// output and error files, made from the journal when read, and each video they produced), found by their
// ids and listed with the uploads. A client sees only its own: anything else is 404, as a file that does
// not exist. A derived file the client deleted stays deleted: the catalog keeps a tombstone under its id.
import { basename } from 'node:path';
import { rm } from 'node:fs/promises';
import type { CatalogFile, ResultRow } from '../journal/index.js';
import { jobRow, jobRows } from './batch-journal.js';
import { batchOf, type Batch } from './batch-record.js';
import { hasFiles, LIVE_STATUSES } from './batch-states.js';
import { filesDir, type ServeContext } from './context.js';
import { fileObject, shape, type UploadRecord } from './file-object.js';
import { derivedChunks, derivedSize } from './derived-lines.js';
import { streamedFileResponse } from '../io/file-response.js';
import { derivedFile, errorFileId, newFileId, outputFileId, videoFileId } from './ids.js';
import { ApiFailure, apiError, notFound } from './openai-error.js';
import { expiresAfterSeconds, uploadPurpose, type FileListQuery } from './file-params.js';
import { batchFilesCreatedAt, batchFilesExpireAt, hasExpired } from './file-expiry.js';
import { receiveUpload } from './upload.js';
import type { IncomingMessage } from 'node:http';

const VIDEO_ENDPOINT = '/v1/video/generations';
/** As many as a catalog holds: the list is merged and paged here. */
const ALL = { limit: Number.MAX_SAFE_INTEGER };

/** One file of the owner's list: its place (newest first), and its object, made only for the page shown. */
interface Listed {
  id: string;
  createdAt: number;
  purpose: string;
  object(): Promise<Record<string, unknown>>;
}

type Found =
  | { kind: 'upload'; file: CatalogFile }
  | { kind: 'lines'; batch: Batch; role: 'output' | 'error' }
  | { kind: 'video'; batch: Batch; row: VideoRow };

export class FilesApi {
  constructor(private readonly ctx: ServeContext) {}

  async upload(owner: string, request: IncomingMessage): Promise<Record<string, unknown>> {
    const id = newFileId();
    const uploaded = await receiveUpload(request, filesDir(this.ctx), id, this.ctx.maxFileBytes);
    let purpose: string;
    let expiresAfter: number | undefined;
    try {
      purpose = uploadPurpose(uploaded.purpose);
      expiresAfter = expiresAfterSeconds(
        uploaded.fields['expires_after[anchor]'],
        uploaded.fields['expires_after[seconds]'],
      );
    } catch (err) {
      await rm(uploaded.path, { force: true });
      throw err;
    }
    const place = await this.keep(uploaded.path, id);
    const createdAt = Math.floor(this.ctx.now() / 1000);
    const record: UploadRecord = {
      filename: uploaded.filename,
      bytes: uploaded.bytes,
      purpose,
      path: place,
      ...(expiresAfter === undefined ? {} : { expires_at: createdAt + expiresAfter }),
    };
    const file: CatalogFile = {
      id,
      owner,
      createdAt,
      record: record as unknown as Record<string, unknown>,
    };
    await this.ctx.catalog.addFile(file);
    return fileObject(file);
  }

  /** The upload kept where the server keeps files (its local copy stays); a failure to store it keeps nothing. */
  private async keep(path: string, id: string): Promise<string> {
    try {
      return await this.ctx.files.keep(path, id);
    } catch (err) {
      await rm(path, { force: true });
      throw new ApiFailure(
        apiError(500, `The server could not store the file (${(err as Error).message}); nothing was kept`),
      );
    }
  }

  /**
   * The owner's files, newest first: uploads, and the files of its final batches (output, error, videos;
   * created when the batch ended), paged by `after` as OpenAI pages.
   */
  async list(owner: string, query: FileListQuery): Promise<Record<string, unknown>> {
    const { limit, after } = query;
    await this.removeExpired(owner);
    const uploads = await this.ctx.catalog.files(owner, ALL);
    const deleted = new Set(uploads.filter(isTombstone).map((f) => f.id));
    const listed: Listed[] = uploads
      .filter((f) => !isTombstone(f))
      .map((file) => ({
        id: file.id,
        createdAt: file.createdAt,
        purpose: (file.record as unknown as UploadRecord).purpose,
        object: async () => fileObject(file),
      }));
    for (const row of await this.ctx.catalog.batches(owner, ALL)) {
      if (!hasFiles(row.status)) continue;
      const batch = batchOf(row);
      if (await this.removedAsExpired(batch)) continue;
      for (const file of await this.derivedOf(batch)) if (!deleted.has(file.id)) listed.push(file);
    }
    // Stable: uploads stay before derived files of the same second, each in its catalog order.
    listed.sort((a, b) => b.createdAt - a.createdAt);
    if (query.order === 'asc') listed.reverse();
    if (query.purpose !== undefined) {
      const wanted = query.purpose;
      const kept = listed.filter((f) => f.purpose === wanted);
      listed.splice(0, listed.length, ...kept);
    }
    const from = after === undefined ? 0 : listed.findIndex((f) => f.id === after) + 1;
    const page = from === 0 && after !== undefined ? [] : listed.slice(from, from + limit);
    const data: Array<Record<string, unknown>> = [];
    for (const file of page) data.push(await file.object());
    return {
      object: 'list',
      data,
      // OpenAI's schema requires both as strings: an empty page's are empty.
      first_id: (data[0]?.id as string | undefined) ?? '',
      last_id: (data.at(-1)?.id as string | undefined) ?? '',
      has_more: page.length > 0 && from + limit < listed.length,
    };
  }

  async retrieve(owner: string, id: string): Promise<Record<string, unknown>> {
    const found = await this.find(owner, id);
    if (found.kind === 'upload') return fileObject(found.file);
    if (found.kind === 'video') return videoObject(found.batch, found.row);
    return linesObject(found.batch, found.role, await derivedSize(this.ctx, found.batch, found.role));
  }

  async content(owner: string, id: string, range: string | undefined): Promise<Response> {
    const found = await this.find(owner, id);
    if (found.kind === 'upload')
      return this.ctx.files.response((found.file.record as unknown as UploadRecord).path, range, 'application/jsonl');
    if (found.kind === 'video') return this.ctx.files.response(found.row.output_path, range, 'video/mp4');
    const { batch, role } = found;
    const size = await derivedSize(this.ctx, batch, role);
    return streamedFileResponse(size, () => derivedChunks(this.ctx, batch, role), range, 'application/jsonl');
  }

  /**
   * Removes an upload (not while a live batch reads it), or a file of a final batch as OpenAI lets a client
   * delete its output: from then on the client neither sees nor lists it (a video's bytes leave the disk);
   * the batch keeps the id, and the journal its rows.
   */
  async remove(owner: string, id: string): Promise<Record<string, unknown>> {
    const found = await this.find(owner, id);
    if (found.kind !== 'upload') {
      await this.ctx.catalog.addFile({
        id,
        owner,
        createdAt: Math.floor(this.ctx.now() / 1000),
        record: { deleted: true },
      });
      if (found.kind === 'video') await this.ctx.files.remove(found.row.output_path);
      return { id, object: 'file', deleted: true };
    }
    // A live batch reads its input again at each run (a restart included).
    const user = (await this.ctx.catalog.batchesIn(LIVE_STATUSES)).find((b) => b.record.input_file_id === id);
    if (user)
      throw new ApiFailure(apiError(409, `File ${id} is the input of batch ${user.id}, which is not final yet`));
    await this.ctx.catalog.deleteFile(id);
    await this.ctx.files.remove((found.file.record as unknown as UploadRecord).path);
    return { id, object: 'file', deleted: true };
  }

  /**
   * Deletes the owner's uploads past their `expires_at`, bytes and all (one a live batch still reads stays
   * until that batch is final).
   */
  private async removeExpired(owner: string): Promise<void> {
    const now = this.ctx.now();
    const expired = (await this.ctx.catalog.files(owner, ALL)).filter((f) =>
      hasExpired((f.record as unknown as UploadRecord).expires_at, now),
    );
    if (expired.length === 0) return;
    const read = new Set((await this.ctx.catalog.batchesIn(LIVE_STATUSES)).map((b) => b.record.input_file_id));
    for (const file of expired) {
      if (read.has(file.id)) continue;
      await this.ctx.catalog.deleteFile(file.id);
      await this.ctx.files.remove((file.record as unknown as UploadRecord).path);
    }
  }

  /** An upload, or a file of a final batch; 404 for anything the owner may not see. */
  private async find(owner: string, id: string): Promise<Found> {
    const derived = derivedFile(id);
    if (!derived) {
      await this.removeExpired(owner);
      const file = await this.ctx.catalog.file(id);
      if (!file || file.owner !== owner || isTombstone(file)) throw new ApiFailure(notFound('file', id));
      return { kind: 'upload', file };
    }
    if (await this.ctx.catalog.file(id)) throw new ApiFailure(notFound('file', id)); // deleted by its owner
    const row = await this.ctx.catalog.batch(derived.batchId);
    if (!row || row.owner !== owner || !hasFiles(row.status)) throw new ApiFailure(notFound('file', id));
    const batch = batchOf(row);
    if (await this.removedAsExpired(batch)) throw new ApiFailure(notFound('file', id));
    if (derived.role !== 'video') return { kind: 'lines', batch, role: derived.role };
    const video = await jobRow(this.ctx, batch.id, derived.seq);
    if (video && isVideoOnDisk(video)) return { kind: 'video', batch, row: video };
    throw new ApiFailure(notFound('file', id));
  }

  /**
   * Whether a final batch's files are past their `expires_at` (its `output_expires_after`): then they are gone,
   * its videos' bytes removed from the disk. The output and error files have none: the journal keeps the rows.
   */
  private async removedAsExpired(batch: Batch): Promise<boolean> {
    if (!hasExpired(batchFilesExpireAt(batch), this.ctx.now())) return false;
    if (batch.fields.endpoint === VIDEO_ENDPOINT)
      for await (const row of jobRows(this.ctx, batch.id))
        if (isVideoOnDisk(row)) await this.ctx.files.remove(row.output_path);
    return true;
  }

  /** The files a final batch has: its output and error files (when they have lines) and its videos. */
  private async derivedOf(batch: Batch): Promise<Listed[]> {
    const at = batchFilesCreatedAt(batch);
    const files: Listed[] = [];
    for (const [id, role] of [
      [batch.fields.output_file_id, 'output'],
      [batch.fields.error_file_id, 'error'],
    ] as const) {
      if (id === outputFileId(batch.id) || id === errorFileId(batch.id))
        files.push({
          id,
          createdAt: at,
          purpose: 'batch_output',
          object: async () => linesObject(batch, role, await derivedSize(this.ctx, batch, role)),
        });
    }
    if (batch.fields.endpoint !== VIDEO_ENDPOINT) return files;
    for await (const row of jobRows(this.ctx, batch.id))
      if (isVideoOnDisk(row))
        files.push({
          id: videoFileId(batch.id, row.seq),
          createdAt: at,
          purpose: 'batch_output',
          object: async () => videoObject(batch, row),
        });
    return files;
  }
}

const isTombstone = (file: CatalogFile): boolean => file.record.deleted === true;

const linesObject = (batch: Batch, role: 'output' | 'error', bytes: number): Record<string, unknown> =>
  withExpiry(
    batch,
    shape(
      role === 'output' ? outputFileId(batch.id) : errorFileId(batch.id),
      batchFilesCreatedAt(batch),
      `${batch.id}_${role}.jsonl`,
      bytes,
      'batch_output',
    ),
  );

/** A batch's file expires `output_expires_after` seconds after it was made, when the batch was given it. */
function withExpiry(batch: Batch, object: Record<string, unknown>): Record<string, unknown> {
  const expiresAt = batchFilesExpireAt(batch);
  return expiresAt === undefined ? object : { ...object, expires_at: expiresAt };
}

/** A video row whose file is on disk: a file of the batch. */
type VideoRow = ResultRow & { output_path: string };

const isVideoOnDisk = (row: ResultRow): row is VideoRow =>
  row.kind === 'video' && row.state === 'downloaded' && row.output_path !== null && row.output_path !== '';

const videoObject = (batch: Batch, row: VideoRow): Record<string, unknown> =>
  withExpiry(
    batch,
    shape(
      videoFileId(batch.id, row.seq),
      batchFilesCreatedAt(batch),
      basename(row.output_path),
      row.bytes ?? 0,
      'batch_output',
    ),
  );
