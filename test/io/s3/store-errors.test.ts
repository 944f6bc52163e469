import { describe, expect, test } from 'vitest';
import { describeS3Failure, ObjectStoreError, s3FailureOf } from '../../../src/io/s3/store-errors.js';

/** An error as the AWS SDK throws it: a name, a message, the HTTP status in $metadata. */
const sdkError = (name: string, status?: number, message = 'a message quoting AKIAQUOTED and a signature') =>
  Object.assign(new Error(message), { name, $metadata: status === undefined ? {} : { httpStatusCode: status } });

describe("a server's refusal", () => {
  test.each([
    ['NoSuchBucket', 404, 'the bucket does not exist (NoSuchBucket, HTTP 404)', 'ENOENT'],
    ['InvalidAccessKeyId', 403, 'the credentials were refused (InvalidAccessKeyId, HTTP 403)', 'EACCES'],
    ['SignatureDoesNotMatch', 403, 'the credentials were refused (SignatureDoesNotMatch, HTTP 403)', 'EACCES'],
    ['AccessDenied', 403, 'writing there is refused (AccessDenied, HTTP 403)', 'EACCES'],
    ['InternalError', 500, 'the storage refused the write (InternalError, HTTP 500)', 'EIO'],
    ['SlowDown', 503, 'the storage refused the write (SlowDown, HTTP 503)', 'EIO'],
  ])('%s: "%s", %s', (name, status, words, errno) => {
    const err = sdkError(name, status);
    expect(describeS3Failure(s3FailureOf(err))).toBe(words);
    const stored = new ObjectStoreError('s3://b/k.mp4', err);
    expect(stored.message).toBe(`s3://b/k.mp4: ${words}`);
    expect(stored).toMatchObject({ code: errno, syscall: 'write' });
  });

  test('no credentials anywhere: said so, with where to put them', () => {
    const err = sdkError('CredentialsProviderError', undefined, 'Could not load credentials from any providers');
    expect(describeS3Failure(s3FailureOf(err))).toBe(
      'no credentials were found (set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE)',
    );
    expect(new ObjectStoreError('s3://b/k', err).code).toBe('EACCES');
  });

  test('an endpoint out of reach is named by its transport code', () => {
    const err = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' });
    expect(describeS3Failure(s3FailureOf(err))).toBe('the endpoint cannot be reached (ECONNREFUSED)');
  });

  test("the server's message is never repeated, and an odd name is not trusted", () => {
    const err = sdkError('Access Denied <script>', 403);
    const words = describeS3Failure(s3FailureOf(err));
    expect(words).toBe('writing there is refused (Error, HTTP 403)');
    expect(new ObjectStoreError('s3://b/k', sdkError('AccessDenied', 403)).message).not.toContain('AKIAQUOTED');
  });
});
