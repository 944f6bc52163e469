// The fault rolls of one request, drawn from the simulator's seeded PRNG. A zero rate draws nothing,
// so turning a fault off does not shift the random sequence of the others.

import type { Random } from './random.js';
import type { Endpoint, FaultOptions } from './types.js';

export type InjectedError =
  { flavor: 'envelope'; status: 500 | 502 | 503 } | { flavor: 'intermediary'; status: 502 | 504 };

const ENVELOPE_STATUSES = [500, 502, 503] as const;
const INTERMEDIARY_STATUSES = [504, 502] as const;

/** Endpoints whose work is done before the answer is lost (accept-then-drop). */
export const DROPPABLE: ReadonlySet<Endpoint> = new Set<Endpoint>(['submit', 'chat', 'responses']);

export function rollInjectedError(faults: FaultOptions, endpoint: Endpoint, random: Random): InjectedError | undefined {
  const rate = faults.errorRates[endpoint] ?? faults.errorRate;
  if (!random.chance(rate)) return undefined;
  const flavor =
    faults.errorFlavor === 'mixed' ? (random.next() < 0.5 ? 'envelope' : 'intermediary') : faults.errorFlavor;
  return flavor === 'envelope'
    ? { flavor, status: random.pick(ENVELOPE_STATUSES) }
    : { flavor, status: random.pick(INTERMEDIARY_STATUSES) };
}

export function rollDrop(faults: FaultOptions, endpoint: Endpoint, random: Random): boolean {
  return DROPPABLE.has(endpoint) && random.chance(faults.acceptThenDropRate);
}

export function latencyOf(faults: FaultOptions, random: Random): number {
  const jitter = faults.latencyJitterMs > 0 ? random.next() * faults.latencyJitterMs : 0;
  return faults.latencyMs + jitter;
}
