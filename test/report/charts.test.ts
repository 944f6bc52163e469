import { describe, expect, it } from 'vitest';
import {
  estimateVsActualChart,
  spendChart,
  statesChart,
  throughputChart,
  videoDurationChart,
} from '../../src/report/html/charts.js';
import { TimelineBuilder } from '../../src/report/timeline.js';

const T = Date.UTC(2026, 10, 24, 1, 0, 0);

function timeline() {
  const b = new TimelineBuilder();
  for (let i = 0; i < 40; i++) {
    b.add({ itemId: `v${i}`, at: T + i * 1000, event: 'submit', to: 'submitting', detail: null });
    if (i === 5)
      b.add({
        itemId: `v${i}`,
        at: T + i * 1000 + 10,
        event: 'retry',
        to: 'pending',
        detail: { status: 429, delayMs: 3000 },
      });
    else if (i === 9)
      b.add({
        itemId: `v${i}`,
        at: T + i * 1000 + 10,
        event: 'retry',
        to: 'pending',
        detail: { status: 503, delayMs: 500 },
      });
    else {
      b.add({ itemId: `v${i}`, at: T + i * 1000 + 20, event: 'accept', to: 'submitted', detail: null });
      b.add({
        itemId: `v${i}`,
        at: T + i * 1000 + 20_000 + i * 300,
        event: 'finish',
        to: 'succeeded',
        detail: { actualUsd: 0.5 },
      });
      b.add({ itemId: `v${i}`, at: T + i * 1000 + 21_000 + i * 300, event: 'store', to: 'downloaded', detail: null });
    }
  }
  return b.finish();
}

const svgOnly = (html: string) => {
  expect(html).toMatch(/<svg[\s>]/);
  expect(html).not.toMatch(/<script|https?:\/\/(?!www\.w3\.org)/i);
};

describe('charts: Plot specs rendered to static SVG', () => {
  it('estimate vs actual: a bar per series and group, labelled, with the legend', () => {
    const html = estimateVsActualChart([
      {
        model: 'video-fast',
        resolution: '720p',
        items: 3,
        settled_items: 3,
        estimated_usd: 1.5,
        actual_usd: 1.8,
        delta_usd: 0.3,
        total_tokens: 0,
      },
      {
        model: 'chat-<b>',
        resolution: null,
        items: 2,
        settled_items: 2,
        estimated_usd: 0.02,
        actual_usd: 0.01,
        delta_usd: -0.01,
        total_tokens: 10,
      },
    ]);
    svgOnly(html);
    expect(html).toContain('$1.80');
    expect(html).toContain('video-fast 720p');
    expect(html).toContain('chat-&lt;b&gt;');
    expect(html).toContain('actual (over estimate)');
  });

  it('spend over time against budget and estimate; throughput with pauses and bursts; durations; states', () => {
    const t = timeline();
    const spend = spendChart(t, 25, 20);
    svgOnly(spend);
    expect(spend).toContain('budget $25.00');
    expect(spend).toContain('estimate $20.00');
    const throughput = throughputChart(t);
    svgOnly(throughput);
    expect(t.pauses).toHaveLength(1);
    expect(t.bursts).toHaveLength(1);
    expect(throughput.match(/<rect/g)!.length).toBeGreaterThan(t.buckets.length);
    const durations = videoDurationChart(t.videoDurationsMs, 25_000);
    svgOnly(durations);
    expect(durations).toContain('median 25.0 s');
    const states = statesChart({ downloaded: 38, pending: 2 });
    svgOnly(states);
    expect(states).toContain('downloaded');
    expect(states).toContain('38');
  });

  it('an empty job still renders every chart', () => {
    const t = new TimelineBuilder().finish();
    for (const html of [
      spendChart(t, null, 0),
      throughputChart(t),
      videoDurationChart([], undefined),
      statesChart({}),
      estimateVsActualChart([]),
    ])
      svgOnly(html);
  });
});
