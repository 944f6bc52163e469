// The start check of a location: a real write and delete of a probe object, before a run sends anything.
// A refusal is one line naming the location, the flag and the cause (never the server's own text).
import { randomBytes } from 'node:crypto';
import { DeleteObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { ConfigError } from '../../core/config-error.js';
import { locationUri } from '../../core/object-location.js';
import type { S3Place } from './s3-place.js';
import { describeS3Failure, s3FailureOf } from './store-errors.js';

export async function probeWrite({ client, bucket, location }: S3Place, flag = '--out'): Promise<void> {
  const key = `${location.prefix}.gbatch-probe-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    await client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: 'gbatch write check\n' }));
    await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
  } catch (err) {
    const reason = describeS3Failure(s3FailureOf(err));
    throw new ConfigError(`${locationUri(location)}: cannot write ${flag} there: ${reason}`, { cause: err });
  }
}
