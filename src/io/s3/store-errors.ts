// What an S3-compatible server's refusal means to a run. Only the error's name and HTTP status are kept:
// a server's message may quote the request (an access key id, a signature), which is never printed.

export interface S3Failure {
  /** The server's error name (NoSuchBucket, AccessDenied, ...) or the transport's code (ECONNREFUSED). */
  name: string;
  status: number | undefined;
}

const CREDENTIALS = new Set([
  'InvalidAccessKeyId',
  'SignatureDoesNotMatch',
  'InvalidToken',
  'ExpiredToken',
  'AuthorizationHeaderMalformed',
]);
const REFUSED = new Set(['AccessDenied', 'AllAccessDisabled', 'AccountProblem', 'Forbidden']);

export function s3FailureOf(err: unknown): S3Failure {
  const e = err as { name?: unknown; Code?: unknown; code?: unknown; $metadata?: { httpStatusCode?: unknown } } | null;
  const status = typeof e?.$metadata?.httpStatusCode === 'number' ? e.$metadata.httpStatusCode : undefined;
  const code = [e?.Code, e?.code, e?.name].find(
    (value) => typeof value === 'string' && /^[A-Za-z0-9_]{1,64}$/.test(value),
  );
  return { name: typeof code === 'string' ? code : 'Error', status };
}

/** The refusal in words, for a one-line start check. */
export function describeS3Failure(failure: S3Failure): string {
  const { name, status } = failure;
  const tail = `(${name}${status !== undefined ? `, HTTP ${status}` : ''})`;
  if (name === 'NoSuchBucket') return `the bucket does not exist ${tail}`;
  if (name === 'CredentialsProviderError')
    return 'no credentials were found (set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE)';
  if (CREDENTIALS.has(name)) return `the credentials were refused ${tail}`;
  if (REFUSED.has(name) || status === 403) return `writing there is refused ${tail}`;
  if (/^E[A-Z]+$/.test(name)) return `the endpoint cannot be reached ${tail}`;
  if (name === 'Error' && status === undefined) return 'the storage could not be used (is AWS_REGION set?)';
  return `the storage refused the write ${tail}`;
}

/**
 * A failed write to object storage, shaped as a file system error (an errno `code` and a `syscall`) so a run
 * stops on it as on a full or read-only disk: exit 2 when it is the location or the credentials, else 75.
 */
export class ObjectStoreError extends Error {
  readonly code: string;
  readonly syscall = 'write';

  constructor(uri: string, err: unknown) {
    const failure = s3FailureOf(err);
    super(`${uri}: ${describeS3Failure(failure)}`);
    this.name = 'ObjectStoreError';
    this.code = errnoFor(failure);
  }
}

function errnoFor({ name, status }: S3Failure): string {
  if (name === 'NoSuchBucket') return 'ENOENT';
  if (CREDENTIALS.has(name) || name === 'CredentialsProviderError' || REFUSED.has(name) || status === 403)
    return 'EACCES';
  return 'EIO';
}
