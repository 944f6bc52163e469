// The Files API: uploads (streamed to disk, then the catalog), and the files derived from batches, found
// by their ids. A client sees only its own: anything else is 404, as a file that does not exist.
import { basename, resolve } from 'node:path';
import { rm } from 'node:fs/promises';
import type { CatalogFile } from '../journal/index.js';
import { jobItems } from './batch-journal.js';
import { batchOf, LIVE_STATUSES, type Batch } from './batch-record.js';
import { filesDir, type ServeContext } from './context.js';
import { fileObject, shape, type UploadRecord } from './file-object.js';
import { diskFileResponse, memoryFileResponse } from './file-response.js';
import { derivedFile, newFileId } from './ids.js';
import { ApiFailure, apiError, notFound } from './openai-error.js';
import { errorLine, fileOf, outputLine, type BatchEnd } from './result-lines.js';
import type { Item } from '../journal/index.js';
import { receiveUpload } from './upload.js';
import type { IncomingMessage } from 'node:http';

const FINAL_WITH_FILES = new Set(['completed', 'expired', 'cancelled']);

type Found =
  | { kind: 'upload'; file: CatalogFile }
  | { kind: 'lines'; batch: Batch; role: 'output' | 'error' }
  | { kind: 'video'; batch: Batch; item: Item };

export class FilesApi {
  constructor(private readonly ctx: ServeContext) {}

  async upload(owner: string, request: IncomingMessage): Promise<Record<string, unknown>> {
    const id = newFileId();
    const uploaded = await receiveUpload(request, filesDir(this.ctx), id, this.ctx.maxFileBytes);
    if (uploaded.purpose !== 'batch') {
      await rm(uploaded.path, { force: true });
      throw new ApiFailure(
        apiError(
          400,
          `Expected purpose 'batch' (this server runs batches), got '${String(uploaded.purpose).slice(0, 40)}'`,
          {
            param: 'purpose',
          },
        ),
      );
    }
    const record: UploadRecord = {
      filename: uploaded.filename,
      bytes: uploaded.bytes,
      purpose: 'batch',
      path: uploaded.path,
    };
    const file: CatalogFile = {
      id,
      owner,
      createdAt: Math.floor(this.ctx.now() / 1000),
      record: record as unknown as Record<string, unknown>,
    };
    await this.ctx.catalog.addFile(file);
    return fileObject(file);
  }

  async list(owner: string, limit: number, after: string | undefined): Promise<Record<string, unknown>> {
    const rows = await this.ctx.catalog.files(owner, { limit: limit + 1, ...(after ? { after } : {}) });
    const data = rows.slice(0, limit).map(fileObject);
    return {
      object: 'list',
      data,
      first_id: data[0]?.id ?? null,
      last_id: data.at(-1)?.id ?? null,
      has_more: rows.length > limit,
    };
  }

  async retrieve(owner: string, id: string): Promise<Record<string, unknown>> {
    const found = await this.find(owner, id);
    if (found.kind === 'upload') return fileObject(found.file);
    const at = found.batch.fields.completed_at ?? found.batch.fields.expired_at ?? found.batch.fields.cancelled_at ?? 0;
    if (found.kind === 'video')
      return shape(id, at, basename(found.item.outputPath ?? 'video.mp4'), found.item.bytes ?? 0, 'batch_output');
    const content = await this.lines(found.batch, found.role);
    return shape(id, at, `${found.batch.id}_${found.role}.jsonl`, content.length, 'batch_output');
  }

  async content(owner: string, id: string, range: string | undefined): Promise<Response> {
    const found = await this.find(owner, id);
    if (found.kind === 'upload')
      return diskFileResponse((found.file.record as unknown as UploadRecord).path, range, 'application/jsonl');
    if (found.kind === 'video') return diskFileResponse(resolve(found.item.outputPath!), range, 'video/mp4');
    return memoryFileResponse(await this.lines(found.batch, found.role), range, 'application/jsonl');
  }

  async remove(owner: string, id: string): Promise<Record<string, unknown>> {
    const found = await this.find(owner, id);
    if (found.kind !== 'upload')
      throw new ApiFailure(apiError(400, 'A file derived from a batch is kept with its batch: it cannot be deleted'));
    // A live batch reads its input again at each run (a restart included).
    const user = (await this.ctx.catalog.batchesIn(LIVE_STATUSES)).find((b) => b.record.input_file_id === id);
    if (user)
      throw new ApiFailure(apiError(409, `File ${id} is the input of batch ${user.id}, which is not final yet`));
    await this.ctx.catalog.deleteFile(id);
    await rm((found.file.record as unknown as UploadRecord).path, { force: true });
    return { id, object: 'file', deleted: true };
  }

  /** An upload, or a file of a final batch; 404 for anything the owner may not see. */
  private async find(owner: string, id: string): Promise<Found> {
    const derived = derivedFile(id);
    if (!derived) {
      const file = await this.ctx.catalog.file(id);
      if (!file || file.owner !== owner) throw new ApiFailure(notFound('file', id));
      return { kind: 'upload', file };
    }
    const row = await this.ctx.catalog.batch(derived.batchId);
    if (!row || row.owner !== owner || !FINAL_WITH_FILES.has(row.status)) throw new ApiFailure(notFound('file', id));
    const batch = batchOf(row);
    if (derived.role !== 'video') return { kind: 'lines', batch, role: derived.role };
    for await (const item of jobItems(this.ctx, batch.id)) {
      if (item.seq === derived.seq && item.kind === 'video' && item.state === 'downloaded' && item.outputPath)
        return { kind: 'video', batch, item };
    }
    throw new ApiFailure(notFound('file', id));
  }

  /** The batch's output or error file, derived from its journal now. */
  private async lines(batch: Batch, role: 'output' | 'error'): Promise<Buffer> {
    const end = batch.status as BatchEnd;
    const parts: string[] = [];
    for await (const item of jobItems(this.ctx, batch.id)) {
      if (fileOf(item) !== role) continue;
      parts.push(`${role === 'output' ? outputLine(item, batch.id) : errorLine(item, end)}\n`);
    }
    return Buffer.from(parts.join(''), 'utf8');
  }
}
