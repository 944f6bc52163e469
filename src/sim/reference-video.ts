// Which video requests carry a reference video (spec 2.9), the simulator's own reading of the rule.

function isVideoItem(item: unknown): boolean {
  if (item === null || typeof item !== 'object' || Array.isArray(item)) return false;
  const type = (item as { type?: unknown }).type;
  return (typeof type === 'string' && type.toLowerCase().includes('video')) || 'video_url' in item;
}

/**
 * `video_url` (a non-blank string) counts 1, `videos` counts its items, and each item of `content`
 * (an array, or one object) whose `type` contains "video" or that has a `video_url` key counts 1.
 * Images never count.
 */
export function countReferenceVideos(body: Record<string, unknown>): number {
  let count = 0;
  if (typeof body.video_url === 'string' && body.video_url.trim() !== '') count += 1;
  if (Array.isArray(body.videos)) count += body.videos.length;
  const content = body.content;
  if (Array.isArray(content)) {
    for (const item of content) if (isVideoItem(item)) count += 1;
  } else if (isVideoItem(content)) {
    count += 1;
  }
  return count;
}
