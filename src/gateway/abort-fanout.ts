// Thousands of requests in flight each listen to the same few run-wide signals (the stop, the cut of unsent
// submissions). An EventTarget checks every listener it holds for a duplicate on each add and walks them on each
// remove, so a listener per request costs time in proportion to the requests in flight, twice per request. Here
// a signal has one listener while any request waits on it, and the requests' callbacks sit in a set: adding and
// dropping one is constant.

interface Waiting {
  callbacks: Set<() => void>;
  listener: () => void;
}

const waiting = new WeakMap<AbortSignal, Waiting>();

/**
 * Calls `onAbort` once when `signal` aborts (at once when it has); returns what stops that. The signal holds no
 * listener of ours once every callback was called or stopped.
 */
export function whenAborted(signal: AbortSignal, onAbort: () => void): () => void {
  if (signal.aborted) {
    onAbort();
    return () => undefined;
  }
  let entry = waiting.get(signal);
  if (!entry) {
    const callbacks = new Set<() => void>();
    const listener = (): void => {
      waiting.delete(signal);
      for (const callback of callbacks) callback();
      callbacks.clear();
    };
    entry = { callbacks, listener };
    waiting.set(signal, entry);
    signal.addEventListener('abort', listener, { once: true });
  }
  const { callbacks, listener } = entry;
  const callback = (): void => onAbort();
  callbacks.add(callback);
  return () => {
    if (!callbacks.delete(callback) || callbacks.size > 0) return;
    waiting.delete(signal);
    signal.removeEventListener('abort', listener);
  };
}
