// Pure: how the account's --rpm is shared. Every request to the gateway counts against the account's
// limit; polls and content downloads take at most a share of it, so submissions are never starved.

/**
 * Polls and downloads per minute: `--poll-rpm` when given (never above `--rpm`), else half of `--rpm`
 * (at least one); undefined when neither is given (unpaced).
 */
export function followUpRpm(rpm: number | undefined, pollRpm: number | undefined): number | undefined {
  if (pollRpm !== undefined) return rpm !== undefined ? Math.min(pollRpm, rpm) : pollRpm;
  return rpm === undefined ? undefined : Math.max(1, Math.floor(rpm / 2));
}
