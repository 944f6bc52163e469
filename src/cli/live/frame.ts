// The live view's frame: a pure function of a snapshot, the terminal's width and the time, so tests
// compare strings. Every line fits in `width - 1` cells (a line as wide as the terminal makes some
// terminals wrap, and a wrapped line breaks the redraw in place).
import type { RunPhase, RunSnapshot } from '../../core/run-snapshot.js';
import type { Forecast } from '../../core/forecast.js';
import { forecastLine } from './forecast-line.js';
import { estimateEta, progressOf, projectCost, rowsPerMinute } from './estimates.js';
import {
  ASCII_BAR,
  bar,
  count,
  displayWidth,
  duration,
  fit,
  joinFit,
  money,
  percent,
  UNICODE_BAR,
  type BarGlyphs,
} from './format.js';

export interface FrameOptions {
  /** Unicode block bars (default) or ASCII ones (`#+-`) for terminals without UTF-8. */
  ascii?: boolean;
  /** Error groups shown (default 3). */
  errorLines?: number;
  /** The forecast of the job's total the job started with, when its record keeps one. */
  forecast?: Forecast;
}

const LABEL = 10;

export const PHASE_WORDS: Record<RunPhase | 'ingest', string> = {
  ingest: 'reading manifests',
  submitting: 'submitting',
  waiting: 'waiting for video tasks',
  downloading: 'downloading',
  settling: 'settling',
  stopping: 'stopping',
  done: 'done',
};

export function renderFrame(
  s: RunSnapshot | undefined,
  width: number,
  now: number,
  options: FrameOptions = {},
): string[] {
  const room = Math.max(1, width - 1);
  const glyphs = options.ascii ? ASCII_BAR : UNICODE_BAR;
  if (!s) return [fit(`gbatch · ${PHASE_WORDS.ingest}…`, room)];
  const line = (label: string, parts: ReadonlyArray<string | undefined>): string =>
    joinFit([`${label.padEnd(LABEL)}${parts[0] ?? ''}`, ...parts.slice(1)], room);
  // The final frame stays on screen: its clock stops when the run did.
  const elapsed = ((s.phase === 'done' ? s.now : now) - s.started_at) / 1000;
  const lines = [joinFit([`gbatch · ${s.job}`, PHASE_WORDS[s.phase], `${duration(elapsed)} elapsed`], room)];
  lines.push(progressLine(s, room, glyphs));
  const { submit, poll, download } = s.lanes;
  lines.push(
    line('submit', [
      `${count(submit.in_flight)} in flight`,
      submit.waiting_for_budget ? 'waiting for budget headroom' : undefined,
      `${count(submit.queued)} queued`,
      `${count(submit.done)} sent`,
      `${count(submit.retries)} retried`,
    ]),
  );
  lines.push(
    line('poll', [
      `${count(poll.tasks)} task${poll.tasks === 1 ? '' : 's'}`,
      s.tasks.oldest_age_s !== null ? `oldest ${duration(s.tasks.oldest_age_s)}` : undefined,
      s.tasks.durations.p50_s !== null ? `typical ${duration(s.tasks.durations.p50_s)}` : undefined,
      `${count(poll.polls)} polls`,
    ]),
  );
  lines.push(
    line('download', [
      `${count(download.in_flight)} active`,
      `${count(download.queued)} queued`,
      `${count(download.done)} done`,
      `${count(download.failed)} failed`,
    ]),
  );
  lines.push(...moneyLines(s, room, glyphs));
  if (options.forecast) lines.push(forecastLine(options.forecast, 'forecast'.padEnd(LABEL), room));
  if (s.paused_until !== null && s.paused_until > now) {
    lines.push(line('paused', [`429: account paused, resuming in ${Math.ceil((s.paused_until - now) / 1000)}s`]));
  }
  const shown = s.errors.slice(0, options.errorLines ?? 3);
  shown.forEach((group, i) => {
    lines.push(
      fit(
        `${(i === 0 ? 'errors' : '').padEnd(LABEL)}×${count(group.count)} ${group.cause}: ${group.last_message}`,
        room,
      ),
    );
  });
  return lines;
}

function progressLine(s: RunSnapshot, room: number, glyphs: BarGlyphs): string {
  const { finished, inFlight, total } = progressOf(s);
  const rate = rowsPerMinute(s);
  const eta = estimateEta(s);
  const etaText =
    eta.seconds !== null ? (s.phase === 'done' ? undefined : `ETA ${duration(eta.seconds)}`) : `ETA ? (${eta.why})`;
  const text = joinFit(
    [
      `${count(finished)}/${count(total)} ${percent(finished, total)}`,
      rate !== null ? `${count(rate)} rows/min` : undefined,
      etaText,
    ],
    room,
  );
  const barWidth = Math.min(50, room - displayWidth(text) - 3);
  if (barWidth < 8) return text;
  return `[${bar(barWidth, finished, inFlight, total, glyphs)}] ${text}`;
}

function moneyLines(s: RunSnapshot, room: number, glyphs: BarGlyphs): string[] {
  const m = s.money;
  const spent = `${money(m.actual_usd)} spent + ${money(m.reserved_usd)} reserved`;
  const lines: string[] = [];
  if (m.budget_usd !== null) {
    const text = `${spent} of ${money(m.budget_usd)}`;
    const barWidth = Math.min(30, room - LABEL - text.length - 3);
    const head = 'budget'.padEnd(LABEL);
    lines.push(
      barWidth >= 8
        ? fit(`${head}[${bar(barWidth, m.actual_usd, m.reserved_usd, m.budget_usd, glyphs)}] ${text}`, room)
        : fit(`${head}${text}`, room),
    );
  } else {
    lines.push(joinFit([`${'spend'.padEnd(LABEL)}${spent}`, 'no budget'], room));
  }
  const projection = projectCost(s);
  if (projection) {
    const ratio = (kind: 'text' | 'video'): string | undefined => {
      const r = projection.ratios[kind];
      return r === null || s.money.by_kind![kind].estimate_usd === 0
        ? undefined
        : `${kind} actual/estimate ${r.toFixed(2)}`;
    };
    const both = projection.ratios.text === null && projection.ratios.video === null;
    lines.push(
      joinFit(
        [
          `${'projected'.padEnd(LABEL)}${money(projection.usd)} for the job`,
          both ? 'at the estimate (nothing settled yet)' : undefined,
          ratio('text'),
          ratio('video'),
        ],
        room,
      ),
    );
  }
  return lines;
}
