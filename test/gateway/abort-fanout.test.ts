// Requests in flight share the run's signals through one listener each, whatever their number.
import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { whenAborted } from '../../src/gateway/abort-fanout.js';
import { linkUnsent } from '../../src/gateway/unsent-signal.js';

describe('whenAborted', () => {
  it('holds one listener on the signal for any number of callbacks, and calls each live one once, in order', () => {
    const stop = new AbortController();
    const heard: number[] = [];
    const drops = Array.from({ length: 500 }, (_, i) => whenAborted(stop.signal, () => heard.push(i)));
    expect(getEventListeners(stop.signal, 'abort')).toHaveLength(1);
    for (let i = 0; i < 500; i += 2) drops[i]!();
    expect(getEventListeners(stop.signal, 'abort')).toHaveLength(1);
    stop.abort(new Error('stop'));
    stop.abort(new Error('again'));
    expect(heard).toEqual(Array.from({ length: 250 }, (_, i) => 2 * i + 1));
  });

  it('calls at once for a signal already aborted; a signal keeps a listener only while a callback waits', () => {
    const stop = new AbortController();
    stop.abort();
    let heard = 0;
    whenAborted(stop.signal, () => heard++);
    expect(heard).toBe(1);
    const next = new AbortController();
    whenAborted(next.signal, () => heard++)();
    expect(getEventListeners(next.signal, 'abort')).toHaveLength(0); // the last callback stopped takes it away
    whenAborted(next.signal, () => heard++);
    next.abort();
    expect(heard).toBe(2);
  });
});

describe('linkUnsent', () => {
  it('cuts the wire with the stop, holds back an unsent request with the cut, and lets go of both when done', () => {
    const stop = new AbortController();
    const cut = new AbortController();
    const links = Array.from({ length: 300 }, () => linkUnsent(stop.signal, cut.signal));
    expect(getEventListeners(stop.signal, 'abort')).toHaveLength(1);
    expect(getEventListeners(cut.signal, 'abort')).toHaveLength(1);
    links[0]!.onSent(); // on the wire: the cut no longer reaches it
    links[1]!.detach(); // over
    cut.abort(new Error('deadline'));
    expect(links[0]!.signal!.aborted).toBe(false);
    expect(links[1]!.signal!.aborted).toBe(false);
    expect(links[2]!.signal!.reason).toEqual(new Error('deadline'));
    stop.abort(new Error('signal'));
    expect(links[0]!.signal!.reason).toEqual(new Error('signal'));
    expect(links[1]!.signal!.aborted).toBe(false);
    expect(links[2]!.signal!.reason).toEqual(new Error('deadline'));
  });
});
