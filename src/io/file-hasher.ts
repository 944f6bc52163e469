// sha256 of a written file, read back and hashed in a worker thread. Hashing each chunk as it arrived
// took a third of the main thread's time while downloading; read back from the page cache on another
// core it costs the main thread nothing, and it hashes what is actually on disk.
import { Worker } from 'node:worker_threads';

/**
 * The worker, as CommonJS source: it then runs the same under the compiled build and under a
 * TypeScript test runner. It reads with pread (explicit positions) on the caller's open descriptor.
 */
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { readSync } = require('node:fs');
const { createHash } = require('node:crypto');
const buffer = Buffer.allocUnsafe(1 << 20);
parentPort.on('message', ({ id, fd, bytes }) => {
  try {
    const hash = createHash('sha256');
    for (let position = 0; position < bytes;) {
      const read = readSync(fd, buffer, 0, Math.min(buffer.length, bytes - position), position);
      if (read === 0) throw Object.assign(new Error('the file ended after ' + position + ' of ' + bytes + ' bytes'), { code: 'ESHORT', syscall: 'read' });
      hash.update(buffer.subarray(0, read));
      position += read;
    }
    parentPort.postMessage({ id, sha256: hash.digest('hex') });
  } catch (err) {
    parentPort.postMessage({ id, error: { message: String(err && err.message), code: err && err.code, syscall: err && err.syscall } });
  }
});
`;

interface Reply {
  id: number;
  sha256?: string;
  error?: { message: string; code?: string; syscall?: string };
}

interface Waiter {
  resolve(sha256: string): void;
  reject(err: Error): void;
}

export class FileHasher {
  private worker: Worker | undefined;
  private nextId = 1;
  private readonly waiting = new Map<number, Waiter>();

  /** The hex sha256 of the first `bytes` bytes of the open file `fd`; a shorter file is an error. */
  hash(fd: number, bytes: number): Promise<string> {
    const worker = this.started();
    const id = this.nextId++;
    return new Promise<string>((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      if (this.waiting.size === 1) worker.ref(); // a pending hash keeps the process alive; an idle worker does not
      worker.postMessage({ id, fd, bytes });
    });
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    if (worker) await worker.terminate();
  }

  private started(): Worker {
    if (this.worker) return this.worker;
    // No inherited flags: `--input-type=module` would make the CommonJS source fail to load.
    const worker = new Worker(WORKER_SOURCE, { eval: true, execArgv: [] });
    worker.unref();
    worker.on('message', (reply: Reply) => this.answer(reply));
    const failAll = (err: Error): void => {
      if (this.worker === worker) this.worker = undefined;
      for (const waiter of this.waiting.values()) waiter.reject(err);
      this.waiting.clear();
    };
    worker.on('error', failAll);
    worker.on('exit', (code) => failAll(new Error(`the hashing thread stopped (exit ${code})`)));
    this.worker = worker;
    return worker;
  }

  private answer(reply: Reply): void {
    const waiter = this.waiting.get(reply.id);
    if (!waiter) return;
    this.waiting.delete(reply.id);
    if (this.waiting.size === 0) this.worker?.unref();
    if (reply.sha256 !== undefined) waiter.resolve(reply.sha256);
    else
      waiter.reject(
        Object.assign(new Error(reply.error?.message ?? 'hashing failed'), {
          code: reply.error?.code,
          syscall: reply.error?.syscall,
        }),
      );
  }
}
