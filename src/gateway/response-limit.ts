// A bound on how much of an answer is read into memory: a chat body, a poll, an error page. Videos
// stream to disk and are not bounded here. Over the bound, reading stops and the connection is dropped.

export const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024 * 1024;
/** Error bodies of downloads are only read for their message. */
export const ERROR_BODY_LIMIT = 1024 * 1024;

export class ResponseTooLargeError extends Error {
  readonly code = 'GBATCH_RESPONSE_TOO_LARGE';
  constructor(
    readonly status: number,
    readonly limit: number,
    readonly seen: number,
  ) {
    super(`answer larger than --max-response-bytes (${limit} bytes)`);
    this.name = 'ResponseTooLargeError';
  }
}

type Body = AsyncIterable<Buffer> & {
  destroy?(err?: Error): unknown;
  on?(event: 'error', listener: (err: Error) => void): unknown;
};

/**
 * Drops the connection of a body no longer wanted. A stream destroyed before anyone read it emits its
 * abort as an 'error' event: without a listener that event would end the process.
 */
function discard(body: Body): void {
  body.on?.('error', () => {});
  body.destroy?.();
}

/** Reads a body to its end as UTF-8, or throws ResponseTooLargeError once more than `limit` bytes came. */
export async function readBounded(
  body: Body,
  status: number,
  limit: number,
  declaredLength: string | undefined,
): Promise<string> {
  if (declaredLength !== undefined && /^\d+$/.test(declaredLength.trim()) && Number(declaredLength) > limit) {
    discard(body);
    throw new ResponseTooLargeError(status, limit, Number(declaredLength));
  }
  const chunks: Buffer[] = [];
  let seen = 0;
  for await (const chunk of body) {
    seen += chunk.length;
    if (seen > limit) {
      discard(body);
      throw new ResponseTooLargeError(status, limit, seen);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, seen).toString('utf8');
}
