// The shipped MP4 is a real ISO-BMFF file, and padding keeps it one (checked without ffprobe).

import { describe, expect, test } from 'vitest';
import { paddedVideo, videoAsset } from '../../src/sim/video-asset.js';

/** Top-level boxes: [type, size]; throws when the sizes do not tile the file exactly. */
function boxes(file: Buffer): Array<[string, number]> {
  const out: Array<[string, number]> = [];
  let at = 0;
  while (at < file.length) {
    const size = file.readUInt32BE(at);
    const type = file.toString('latin1', at + 4, at + 8);
    if (size < 8 || at + size > file.length) throw new Error(`bad box ${type} of size ${size} at ${at}`);
    out.push([type, size]);
    at += size;
  }
  return out;
}

describe('assets/sim-video.mp4', () => {
  test('starts with an ftyp box and holds moov and mdat, a few KB in all', () => {
    const file = videoAsset();
    expect(file.toString('latin1', 4, 8)).toBe('ftyp');
    const types = boxes(file).map(([t]) => t);
    expect(types[0]).toBe('ftyp');
    expect(types).toContain('moov');
    expect(types).toContain('mdat');
    expect(file.length).toBeGreaterThan(500);
    expect(file.length).toBeLessThan(20_000);
  });

  test('padding appends one free box to the exact size', () => {
    const asset = videoAsset();
    const padded = paddedVideo(asset, 1_000_000);
    expect(padded.length).toBe(1_000_000);
    expect(padded.subarray(0, asset.length).equals(asset)).toBe(true);
    expect(boxes(padded).at(-1)).toEqual(['free', 1_000_000 - asset.length]);
  });

  test('no size asked: the asset itself; too small a size is refused', () => {
    const asset = videoAsset();
    expect(paddedVideo(asset, undefined)).toBe(asset);
    expect(paddedVideo(asset, asset.length)).toBe(asset);
    expect(() => paddedVideo(asset, asset.length + 3)).toThrow(/videoBytes/);
    expect(() => paddedVideo(asset, 100)).toThrow(/videoBytes/);
  });
});
