// A request's `Range: bytes=a-b` against a length: the one range served (several are not), or 'unsatisfiable'.
export type ByteRange = { start: number; end: number } | 'unsatisfiable' | undefined;

export function byteRange(header: string | undefined, length: number): ByteRange {
  if (header === undefined) return undefined;
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  // A range we do not parse (several, another unit) is ignored, as RFC 9110 allows: the whole content.
  if (!match || (match[1] === '' && match[2] === '')) return undefined;
  if (match[1] === '') {
    const suffix = Number(match[2]);
    if (suffix === 0 || length === 0) return 'unsatisfiable';
    return { start: Math.max(0, length - suffix), end: length - 1 };
  }
  const start = Number(match[1]);
  const end = match[2] === '' ? length - 1 : Math.min(Number(match[2]), length - 1);
  if (start >= length || end < start) return 'unsatisfiable';
  return { start, end };
}
