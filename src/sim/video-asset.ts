// The MP4 the simulator serves: a real, playable 1 s 64x64 H.264 clip shipped in assets/, optionally
// padded to a chosen size with an ISO-BMFF `free` box (players skip it, so the file stays playable).

import { readFileSync } from 'node:fs';
import { packageFile } from '../core/package-files.js';

const ASSET = packageFile('assets/sim-video.mp4');
const BOX_HEADER = 8;
const MAX_BOX = 0xffffffff;

let cached: Buffer | undefined;

export function videoAsset(): Buffer {
  cached ??= readFileSync(ASSET);
  return cached;
}

/** The asset padded to exactly `bytes` (asset size, or at least asset size + 8). */
export function paddedVideo(asset: Buffer, bytes: number | undefined): Buffer {
  if (bytes === undefined || bytes === asset.length) return asset;
  const padding = bytes - asset.length;
  if (!Number.isInteger(bytes) || padding < BOX_HEADER || padding > MAX_BOX) {
    throw new RangeError(
      `startSimulator: expected videoBytes to be ${asset.length} (the asset's size) or an integer from ${asset.length + BOX_HEADER} to ${asset.length + MAX_BOX}, got ${bytes}`,
    );
  }
  const out = Buffer.alloc(bytes);
  asset.copy(out, 0);
  out.writeUInt32BE(padding, asset.length);
  out.write('free', asset.length + 4, 'latin1');
  return out;
}
