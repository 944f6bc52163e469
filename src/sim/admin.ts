// The admin endpoint's rules (`gbatch sim --admin`): faults named as `gbatch sim`'s flags are, read and
// changed while the simulator runs; asked only from loopback, with one of the simulator's API keys.
import type { FaultOptions } from './types.js';

/** The fault flags of `gbatch sim`, by the FaultOptions field each sets. */
const FAULT_FLAGS = {
  'latency-ms': 'latencyMs',
  'latency-jitter-ms': 'latencyJitterMs',
  'error-rate': 'errorRate',
  'error-flavor': 'errorFlavor',
  'accept-then-drop-rate': 'acceptThenDropRate',
  'truncate-rate': 'truncateDownloadRate',
  'fail-rate': 'failRate',
  'final-resolution': 'finalResolution',
  'final-resolution-rate': 'finalResolutionRate',
} as const satisfies Record<string, keyof FaultOptions>;

type FaultFlag = keyof typeof FAULT_FLAGS;

/** The faults in force, under their flag names (`final-resolution`: null when every video comes out as asked). */
export function faultsView(faults: FaultOptions): Record<FaultFlag, unknown> {
  const view = {} as Record<FaultFlag, unknown>;
  for (const [flag, field] of Object.entries(FAULT_FLAGS) as Array<[FaultFlag, keyof FaultOptions]>)
    view[flag] = faults[field] ?? null;
  return view;
}

/**
 * A change of faults from a request body: an object of flag names and values (`final-resolution`: null
 * clears it). A string says why the body is refused; the values themselves are checked by mergeFaults.
 */
export function faultUpdate(body: unknown): Partial<FaultOptions> | string {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    return 'expected a JSON object of fault flags, e.g. {"fail-rate": 0, "error-rate": 0}';
  const update: Record<string, unknown> = {};
  for (const [flag, value] of Object.entries(body)) {
    if (!Object.hasOwn(FAULT_FLAGS, flag))
      return `unknown fault '${flag.slice(0, 60)}'; known: ${Object.keys(FAULT_FLAGS).join(', ')}`;
    const field = FAULT_FLAGS[flag as FaultFlag];
    const text = field === 'errorFlavor' || field === 'finalResolution';
    if (field === 'finalResolution' && value === null) update[field] = undefined;
    else if (text ? typeof value !== 'string' : typeof value !== 'number')
      return `expected '${flag}' to be ${text ? 'a string' : 'a number'}`;
    else update[field] = value;
  }
  return update as Partial<FaultOptions>;
}

/** An address of this host: 127.0.0.0/8, ::1, or an IPv4 loopback mapped into IPv6. */
export function isLoopbackAddress(address: string | undefined): boolean {
  if (address === undefined) return false;
  const v4 = address.startsWith('::ffff:') ? address.slice(7) : address;
  return address === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(v4);
}
