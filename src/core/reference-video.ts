// Which requests carry a reference video (spec 2.9): it changes both the rate and the estimated tokens.

function isVideoItem(item: unknown): boolean {
  if (item === null || typeof item !== 'object' || Array.isArray(item)) return false;
  const type = (item as Record<string, unknown>).type;
  return (typeof type === 'string' && type.toLowerCase().includes('video')) || 'video_url' in item;
}

/**
 * How many reference videos a video request carries: `video_url` (a non-empty string) counts 1,
 * `videos` counts its length, and each video item of `content` (an array, or a single object) counts 1.
 * Image references never count.
 */
export function countReferenceVideos(request: Record<string, unknown>): number {
  let count = 0;
  const { video_url: videoUrl, videos, content } = request;
  if (typeof videoUrl === 'string' && videoUrl.trim() !== '') count += 1;
  if (Array.isArray(videos)) count += videos.length;
  const items = Array.isArray(content) ? content : content !== undefined ? [content] : [];
  for (const item of items) if (isVideoItem(item)) count += 1;
  return count;
}

export function hasReferenceVideo(request: Record<string, unknown>): boolean {
  return countReferenceVideos(request) > 0;
}
