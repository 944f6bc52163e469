import { describe, expect, test } from 'vitest';
import { findVideoModel, type VideoModel } from '../../../src/core/models.js';
import { validateVideoRequest } from '../../../src/sim/validate/video.js';

const fast = findVideoModel('video-fast') as VideoModel;
const pro = findVideoModel('video-pro') as VideoModel;
const pro25 = findVideoModel('video-pro-2.5') as VideoModel;

describe('accepted video requests', () => {
  test('defaults: 720p, 5 s, no reference video', () => {
    expect(validateVideoRequest({ model: 'video-fast', prompt: 'a cat' }, fast)).toEqual({
      prompt: 'a cat',
      resolution: '720p',
      seconds: 5,
      referenceVideos: 0,
    });
  });

  test.each([
    [{ duration: 0 }, 0],
    [{ duration: 3600 }, 3600],
    [{ duration: '12' }, 12],
    [{ duration: ' 7 ' }, 7],
    [{ seconds: '4' }, 4],
    [{ seconds: 6 }, 6],
    [{ duration: '2.5' }, 2.5],
    [{ duration: 3, seconds: '9' }, 3],
  ])('%o gives %f seconds', (fields, seconds) => {
    expect(validateVideoRequest({ prompt: 'p', ...fields }, fast)).toMatchObject({ seconds });
  });

  test('4K is accepted as 4k on the tier that has it', () => {
    expect(validateVideoRequest({ prompt: 'p', resolution: '4K' }, pro)).toMatchObject({ resolution: '4k' });
  });

  test('reference videos are counted; images are not', () => {
    expect(validateVideoRequest({ prompt: 'p', video_url: 'https://x/v.mp4' }, fast)).toMatchObject({
      referenceVideos: 1,
    });
    expect(
      validateVideoRequest({ prompt: 'p', videos: ['a', { url: 'b', role: 'reference_video' }] }, fast),
    ).toMatchObject({ referenceVideos: 2 });
    expect(
      validateVideoRequest(
        { prompt: 'p', images: ['a', { url: 'b', role: 'first_frame' }], image: 'c', input_reference: 'd' },
        fast,
      ),
    ).toMatchObject({ referenceVideos: 0 });
    expect(
      validateVideoRequest(
        {
          prompt: 'p',
          content: [
            { type: 'text', text: 'x' },
            { type: 'video_url', video_url: { url: 'v' } },
          ],
        },
        fast,
      ),
    ).toMatchObject({ referenceVideos: 1 });
  });

  test('fields the gateway does not define are allowed (they are forwarded)', () => {
    expect(
      validateVideoRequest({ prompt: 'p', camera: 'dolly', width: 640, height: 360, fps: 24, seed: 7, n: 1 }, fast),
    ).toMatchObject({ seconds: 5 });
  });
});

describe('rejected video requests name the parameter', () => {
  test.each([
    [{}, 'prompt'],
    [{ prompt: '   ' }, 'prompt'],
    [{ prompt: 42 }, 'prompt'],
    [{ prompt: 'p', duration: 3601 }, 'duration'],
    [{ prompt: 'p', duration: -1 }, 'duration'],
    [{ prompt: 'p', duration: 'abc' }, 'duration'],
    [{ prompt: 'p', duration: 5.5 }, 'duration'],
    [{ prompt: 'p', duration: true }, 'duration'],
    [{ prompt: 'p', seconds: '4000' }, 'duration'],
    [{ prompt: 'p', duration: 5, seconds: 'x' }, 'duration'],
    [{ prompt: 'p', resolution: '4k' }, 'resolution'],
    [{ prompt: 'p', resolution: 'banana' }, 'resolution'],
    [{ prompt: 'p', resolution: 720 }, 'resolution'],
    [{ prompt: 'p', images: 'a.png' }, 'images'],
    [{ prompt: 'p', images: [{ role: 'first_frame' }] }, 'images[0]'],
    [{ prompt: 'p', videos: [3] }, 'videos[0]'],
    [{ prompt: 'p', video_url: 3 }, 'video_url'],
    [{ prompt: 'p', generate_audio: 'yes' }, 'generate_audio'],
    [{ prompt: 'p', metadata: '{not json' }, 'metadata'],
    [{ prompt: 'p', metadata: 5 }, 'metadata'],
    [{ prompt: 'p', seed: 1.5 }, 'seed'],
    [{ prompt: 'p', width: '640' }, 'width'],
    [{ prompt: 'p', response_format: 1 }, 'response_format'],
  ])('%o -> %s', (body, param) => {
    expect(validateVideoRequest(body, fast)).toMatchObject({ param });
  });

  test('video-pro-2.5 has no 480p', () => {
    expect(validateVideoRequest({ prompt: 'p', resolution: '480p' }, pro25)).toMatchObject({ param: 'resolution' });
  });

  test('metadata may be an object or a JSON string of one', () => {
    expect(validateVideoRequest({ prompt: 'p', metadata: '{"a":1}' }, fast)).not.toHaveProperty('param');
    expect(validateVideoRequest({ prompt: 'p', metadata: { a: 1 } }, fast)).not.toHaveProperty('param');
  });
});
