import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import type { RunEvents } from '../../../src/pipeline/context.js';
import { LaneFailures } from '../../../src/pipeline/lanes/lane-failures.js';
import { operatorVoice } from '../../../src/pipeline/voice/operator-voice.js';

function lanes() {
  const events = new EventEmitter<RunEvents>();
  const lines: string[] = [];
  events.on('log', (line) => lines.push(line));
  const submitStop = new AbortController();
  const stop = new AbortController();
  return { failures: new LaneFailures({ submitStop, stop, events, voice: operatorVoice }), submitStop, stop, lines };
}

describe('LaneFailures', () => {
  it('the first failing lane stops submissions, polls and downloads at once, with one line', async () => {
    const { failures, submitStop, stop, lines } = lanes();
    const first = new Error('database out of reach');
    await failures.watch(Promise.reject(first));
    expect(submitStop.signal.aborted && stop.signal.aborted).toBe(true);
    failures.trip(new Error('an echo of the same cause'));
    expect(failures.failure).toBe(first);
    expect(lines).toEqual([
      'stopping: database out of reach; no new submissions, polls or downloads; answers in flight are kept in the journal',
    ]);
    expect(() => failures.rethrow()).toThrow(first);
  });

  it('watching a lane never rejects, and a run whose lanes all end well throws nothing', async () => {
    const { failures, submitStop } = lanes();
    await expect(failures.watch(Promise.resolve('done'))).resolves.toBeUndefined();
    expect(submitStop.signal.aborted).toBe(false);
    expect(() => failures.rethrow()).not.toThrow();
  });

  it('escapes control characters of the cause it prints', () => {
    const { failures, lines } = lanes();
    failures.trip(new Error('bad\u001b[31m'));
    expect(lines[0]).toContain('bad\\x1b[31m');
  });
});
