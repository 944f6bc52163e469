// The database's clock, in ms since the epoch: leases, send slots and pauses are judged on the one clock
// every runner shares, whatever each host's own says.
export const DB_NOW_MS = '(extract(epoch from clock_timestamp()) * 1000)::bigint';
