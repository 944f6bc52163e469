// The live view of `run` on a terminal: a frame redrawn in place (log-update), the run's log lines
// above it. Loaded only when that view is chosen (progress-view.ts).
import type { EventEmitter } from 'node:events';
import { createLogUpdate } from 'log-update';
import type { RunEvents } from '../../pipeline/index.js';
import type { RunSnapshot } from '../../core/run-snapshot.js';
import type { Forecast } from '../../core/forecast.js';
import { renderFrame } from './frame.js';
import { logLine, type ProgressStream, type ProgressView } from './view.js';

export function liveView(
  events: EventEmitter<RunEvents>,
  stream: ProgressStream,
  now: () => number,
  ascii: boolean,
): ProgressView {
  const draw = createLogUpdate(stream);
  let latest: RunSnapshot | undefined;
  let forecast: Forecast | undefined;
  let finished = false;
  const redraw = (): void => {
    if (finished) return;
    draw(renderFrame(latest, stream.columns ?? 80, now(), { ascii, ...(forecast ? { forecast } : {}) }).join('\n'));
  };
  events.on('log', (line) => {
    if (finished) {
      stream.write(`${logLine(line)}\n`);
      return;
    }
    // Above the frame, in the scrollback: the frame is erased, the line written, the frame drawn again below it.
    draw.persist(logLine(line));
    redraw();
  });
  events.on('forecast', (kept) => {
    forecast = kept.total;
    redraw();
  });
  events.on('snapshot', (s) => {
    latest = s;
    redraw();
  });
  redraw();
  // Between snapshots (a long ingest), the elapsed time and a 429's countdown still move.
  const timer = setInterval(redraw, 1000);
  timer.unref();
  return {
    finish() {
      if (finished) return;
      clearInterval(timer);
      if (latest) {
        redraw();
        finished = true;
        draw.done();
      } else {
        finished = true;
        draw.clear();
        draw.done();
      }
    },
  };
}
