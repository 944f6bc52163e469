// Test instrumentation of the in-process simulator: an event for every request the ledger records,
// emitted before the answer is written, so a listener that kills the runner there hits the window
// between the gateway doing the work and the runner hearing about it.
import { EventEmitter } from 'node:events';
import type { RequestRecord, Simulator } from '../../../src/sim/index.js';

export interface SimWatch {
  events: EventEmitter<{ request: [RequestRecord] }>;
  /** Resolves once no request has been recorded for `quietMs`: work in the kernel's socket buffers is done. */
  quiet(quietMs?: number): Promise<void>;
}

export function watchSimulator(sim: Simulator): SimWatch {
  const events = new EventEmitter<{ request: [RequestRecord] }>();
  const ledger = sim.ledger;
  const record = ledger.recordRequest.bind(ledger);
  ledger.recordRequest = (entry: RequestRecord): void => {
    record(entry);
    events.emit('request', entry);
  };
  return {
    events,
    quiet(quietMs = 40) {
      // After a SIGKILL the requests the runner had already written sit in this process's socket
      // buffers; no event says when the simulator has read and handled them, so wait for a lull
      // (else they would count as requests of the next run, whose kill may wait for its n-th).
      return new Promise((resolve) => {
        let timer = setTimeout(done, quietMs);
        function onRequest(): void {
          clearTimeout(timer);
          timer = setTimeout(done, quietMs);
        }
        function done(): void {
          events.off('request', onRequest);
          resolve();
        }
        events.on('request', onRequest);
      });
    },
  };
}
