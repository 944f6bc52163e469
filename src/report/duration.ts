// Pure: a span of milliseconds as people write it (450 ms, 4.5 s, 2 min 5 s, 3 h 1 min, 2 d 4 h).

export function duration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return '-';
  if (ms < 1000) return `${ms} ms`;
  const s = ms / 1000;
  if (s < 60) return `${s.toFixed(1)} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${Math.floor(s - m * 60)} s`;
  const h = Math.floor(m / 60);
  return h < 48 ? `${h} h ${m - h * 60} min` : `${Math.floor(h / 24)} d ${h % 24} h`;
}
