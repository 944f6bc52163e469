// Facts of the gateway spec (sections 8.1, 8.2) and of the simulator's model list (runner contract).

export type Resolution = '480p' | '720p' | '1080p' | '4k';
export const RESOLUTIONS: readonly Resolution[] = ['480p', '720p', '1080p', '4k'];

/** Frame size used by the token formula; billing treats unknown or omitted resolutions as 720p (spec 2.9). */
export const RESOLUTION_SIZE: Record<Resolution, { width: number; height: number }> = {
  '480p': { width: 854, height: 480 },
  '720p': { width: 1280, height: 720 },
  '1080p': { width: 1920, height: 1080 },
  '4k': { width: 3840, height: 2160 },
};

export const DEFAULT_VIDEO_SECONDS = 5;
export const MAX_VIDEO_SECONDS = 3600;
export const FRAMES_PER_SECOND = 24;

/** Lower-cases and accepts `4K`; returns undefined for anything the spec does not name. */
export function normaliseResolution(value: unknown): Resolution | undefined {
  if (typeof value !== 'string') return undefined;
  const lower = value.trim().toLowerCase();
  return (RESOLUTIONS as readonly string[]).includes(lower) ? (lower as Resolution) : undefined;
}

/** The resolution billing uses: omitted or unrecognised values count as 720p (spec 2.9). */
export function billingResolution(value: unknown): Resolution {
  return normaliseResolution(value) ?? '720p';
}

export interface VideoModel {
  id: string;
  tier: 'fast' | 'mini' | 'pro' | 'pro-2.5';
  resolutions: readonly Resolution[];
}

export const VIDEO_MODELS: readonly VideoModel[] = [
  { id: 'video-fast', tier: 'fast', resolutions: ['480p', '720p', '1080p'] },
  { id: 'video-mini', tier: 'mini', resolutions: ['480p', '720p', '1080p'] },
  { id: 'video-pro', tier: 'pro', resolutions: ['480p', '720p', '1080p', '4k'] },
  { id: 'video-pro-2.5', tier: 'pro-2.5', resolutions: ['720p', '1080p'] },
];

export const CHAT_MODELS: readonly string[] = ['chat-small', 'chat-large'];

export function findVideoModel(id: string): VideoModel | undefined {
  return VIDEO_MODELS.find((m) => m.id === id);
}
