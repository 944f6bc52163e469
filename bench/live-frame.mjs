// What the live view costs at 100,000 rows: a transition taken in by the run monitor, and one frame
// (snapshot + frame text, and the NDJSON line) built from it. The counts are kept from events, so
// neither depends on the number of rows; this prints the numbers that show it.
// Usage: npm run build && node bench/live-frame.mjs
import { EventEmitter } from 'node:events';
import { Writable } from 'node:stream';
import { createLogUpdate } from 'log-update';
import { BUILTIN_PRICING } from '../dist/core/pricing.js';
import { ITEM_STATES } from '../dist/core/states.js';
import { BudgetGuard } from '../dist/pipeline/budget-guard.js';
import { RunMonitor } from '../dist/pipeline/monitor/run-monitor.js';
import { renderFrame } from '../dist/cli/live/frame.js';
import { plainLine } from '../dist/cli/live/plain.js';
import { snapshotJson } from '../dist/cli/live/progress-view.js';

const ROWS = 100_000;
let now = Date.now();
const clock = { now: () => now, sleep: async () => undefined };
const events = new EventEmitter();
const counts = Object.fromEntries(ITEM_STATES.map((s) => [s, 0]));
counts.pending = ROWS;
const journal = {
  counts: async () => ({ ...counts }),
  reportSums: async () => ({
    total: {},
    groups: [{ model: 'chat-small', resolution: null, estimated: 2, settled_estimated: 0, actual: 0 }],
  }),
  async *iterate() {},
  lastSubmitTimes: async () => new Map(),
};
const ctx = {
  journal,
  clock,
  events,
  pricing: BUILTIN_PRICING,
  budget: new BudgetGuard(60, { reservedUsd: 0, actualUsd: 0 }),
  gateway: { pausedUntil: () => 0 },
  submitStop: new AbortController(),
  stop: new AbortController(),
};
const monitor = new RunMonitor(
  ctx,
  { polls: () => 0, downloads: () => ({ in_flight: 0, queued: 0, failed: 0 }) },
  { job: 'chat100k', budgetUsd: 60, progressIntervalMs: 3_600_000, snapshotIntervalMs: 3_600_000 },
);
await monitor.start();

const item = (i, state, extra = {}) => ({
  id: `c${i}`,
  kind: 'chat',
  state,
  estimateUsd: 0.00002,
  actualUsd: null,
  lastError: null,
  ...extra,
});
const t0 = performance.now();
for (let i = 0; i < ROWS; i++) {
  now += 3; // 100,000 rows over 5 minutes
  events.emit('transition', item(i, 'submitting'), 'pending');
  if (i % 50 === 0)
    events.emit(
      'transition',
      item(i, 'pending', { lastError: { status: 429, code: 'rate_limit_exceeded', message: 'slow down' } }),
      'submitting',
    );
  else events.emit('transition', item(i, 'succeeded', { actualUsd: 0.000015 }), 'submitting');
}
const perTransition = (performance.now() - t0) / (ROWS * 2);

const FRAMES = 5_000;
const measure = (work) => {
  const start = process.cpuUsage();
  for (let i = 0; i < FRAMES; i++) work(i);
  const used = process.cpuUsage(start);
  return (used.user + used.system) / FRAMES / 1000;
};
const frameMs = measure((i) => renderFrame(monitor.snapshot(), 100, now + i));
// The redraw itself: log-update's wrap, diff and write, to a terminal that discards the bytes.
const tty = Object.assign(new Writable({ write: (_chunk, _enc, done) => done() }), {
  isTTY: true,
  columns: 100,
  rows: 40,
});
const draw = createLogUpdate(tty, { showCursor: true });
const redrawMs = measure((i) => draw(renderFrame(monitor.snapshot(), 100, now + i * 1000).join('\n')));
const jsonMs = measure(() => snapshotJson(monitor.snapshot()));
const plainMs = measure((i) => plainLine(monitor.snapshot(), now + i));
monitor.stop();
console.log(
  JSON.stringify({
    rows: ROWS,
    transition_us: +(perTransition * 1000).toFixed(2),
    frame_cpu_ms: +frameMs.toFixed(4),
    redraw_cpu_ms: +redrawMs.toFixed(4),
    ndjson_cpu_ms: +jsonMs.toFixed(4),
    plain_cpu_ms: +plainMs.toFixed(4),
    frames_per_s: 4,
    view_cpu_share: `${((redrawMs * 4) / 10).toFixed(3)}% of one core`,
  }),
);
console.log(renderFrame(monitor.snapshot(), 100, now).join('\n'));
