import { describe, expect, test } from 'vitest';
import { ConfigError } from '../../src/core/config-error.js';
import {
  isObjectLocation,
  objectKey,
  objectUri,
  parseEndpoint,
  parseObjectLocation,
} from '../../src/core/object-location.js';

describe('s3:// locations', () => {
  test('bucket and prefix, the prefix ending with one slash', () => {
    expect(parseObjectLocation('s3://media-out/campaign/2026')).toEqual({
      bucket: 'media-out',
      prefix: 'campaign/2026/',
    });
    expect(parseObjectLocation('s3://media-out//a//b/')).toEqual({ bucket: 'media-out', prefix: 'a/b/' });
    expect(parseObjectLocation('s3://media-out')).toEqual({ bucket: 'media-out', prefix: '' });
    expect(isObjectLocation('S3://x')).toBe(true);
    expect(isObjectLocation('out/s3:')).toBe(false);
  });

  test('credentials in the location are refused without being echoed', () => {
    const err = (() => {
      try {
        parseObjectLocation('s3://AKIASECRET:hunter2@media-out/p');
      } catch (e) {
        return e as Error;
      }
    })();
    expect(err).toBeInstanceOf(ConfigError);
    expect(err!.message).toMatch(/^--out: an s3:\/\/ location must not carry credentials/);
    expect(err!.message).not.toMatch(/hunter2|AKIASECRET/);
  });

  test.each([
    ['s3://Bad_Bucket/x', /is not a bucket name/],
    ['s3://ab/x', /is not a bucket name/],
    ['s3://bucket/../x', /must not hold '\.' or '\.\.'/],
    ['s3://bucket/x?versionId=1', /no query or fragment/],
    ['s3://bucket/a\u0001b', /control characters/],
  ])('%j is refused', (text, reason) => {
    expect(() => parseObjectLocation(text)).toThrow(reason);
  });

  test('keys stay under the prefix', () => {
    const location = parseObjectLocation('s3://media-out/run');
    expect(objectUri(location, objectKey(location, 'row%2F1.mp4'))).toBe('s3://media-out/run/row%2F1.mp4');
    expect(() => objectKey(location, '../x')).toThrow(/not a plain name/);
    expect(() => objectKey(location, '..')).toThrow(/not a plain name/);
  });

  test('an endpoint with credentials, another scheme or a query is refused', () => {
    expect(parseEndpoint('http://127.0.0.1:9000/', '--s3-endpoint')).toBe('http://127.0.0.1:9000');
    expect(() => parseEndpoint('http://key:secret@127.0.0.1:9000', '--s3-endpoint')).toThrow(
      /^--s3-endpoint: the URL must not carry credentials/,
    );
    expect(() => parseEndpoint('ftp://host', 'AWS_ENDPOINT_URL')).toThrow(/must be http:\/\/ or https:\/\//);
    expect(() => parseEndpoint('not a url', 'AWS_ENDPOINT_URL')).toThrow(/not a URL/);
  });
});
