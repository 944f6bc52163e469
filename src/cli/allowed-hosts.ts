// `--allowed-host` of `gbatch serve` and `gbatch ui`: each a host name or name:port, checked before the
// server starts (exit 2 naming the bad one).
import { parseAuthority } from '../core/host-names.js';
import { UsageError } from '../job/options.js';

export function allowedHosts(values: readonly string[] | undefined): string[] {
  return (values ?? []).map((value) => {
    if (!parseAuthority(value))
      throw new UsageError(`--allowed-host '${value}': expected a host name or address, optionally with :port`);
    return value.trim();
  });
}
