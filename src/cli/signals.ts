// SIGINT/SIGTERM: the first asks the run to stop gracefully, the second cuts requests on the wire.

export interface Signals {
  interrupt: AbortSignal;
  force: AbortSignal;
  dispose(): void;
}

export function installSignals(): Signals {
  const interrupt = new AbortController();
  const force = new AbortController();
  const onSignal = (signal: NodeJS.Signals): void => {
    if (!interrupt.signal.aborted) interrupt.abort(signal);
    else force.abort(signal);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return {
    interrupt: interrupt.signal,
    force: force.signal,
    dispose() {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}
