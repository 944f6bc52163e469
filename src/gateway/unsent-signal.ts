// One abort signal for undici out of two: `signal` cuts the request anywhere (on the wire too);
// `unsent` stops it only while nothing of it has left (queued for a socket, or connecting). A run that
// stops sending (the deadline) must not let a connecting submission out, nor make a sent one uncertain.
import { whenAborted } from './abort-fanout.js';

export interface LinkedSignal {
  /** What undici is given; undefined when neither signal was. */
  signal: AbortSignal | undefined;
  /** Call when the request starts to leave: from then on only `signal` can cut it. */
  onSent(): void;
  /** Call when the exchange is over (body consumed or failed): drops the listeners. */
  detach(): void;
}

export function linkUnsent(signal: AbortSignal | undefined, unsent: AbortSignal | undefined): LinkedSignal {
  if (!unsent) return { signal, onSent: () => undefined, detach: () => undefined };
  const wire = new AbortController();
  const dropCut = signal ? whenAborted(signal, () => wire.abort(signal.reason)) : () => undefined;
  const dropHoldBack = whenAborted(unsent, () => wire.abort(unsent.reason));
  return {
    signal: wire.signal,
    onSent: dropHoldBack,
    detach() {
      dropHoldBack();
      dropCut();
    },
  };
}
