// Pure (the clock comes in): failed sign-ins limited per client address. A token is a secret of 16 or more
// characters; guessing one is only as slow as the server makes it, so an address that fails `limit` times
// within a window is refused (429, Retry-After) until that window ends, and the server says so once.

export const MIN_TOKEN_LENGTH = 16;

/** The first token of `tokens` too short to be a secret, if any (the server refuses to start on it). */
export function shortToken(tokens: readonly string[]): string | undefined {
  return tokens.find((token) => token.length < MIN_TOKEN_LENGTH);
}

export interface ThrottleRule {
  /** Failed sign-ins an address may make in one window. */
  limit: number;
  windowMs: number;
  /** Addresses followed at once: the oldest window is dropped past it (memory stays bounded). */
  maxAddresses: number;
}

export const SIGN_IN_RULE: ThrottleRule = { limit: 10, windowMs: 60_000, maxAddresses: 10_000 };

interface Window {
  startedAt: number;
  failures: number;
}

export class SignInThrottle {
  private readonly windows = new Map<string, Window>();

  constructor(
    private readonly now: () => number,
    private readonly rule: ThrottleRule = SIGN_IN_RULE,
  ) {}

  /** Seconds `address` must wait before it may try again; undefined when it may try now. */
  retryAfterS(address: string): number | undefined {
    const window = this.current(address);
    if (!window || window.failures < this.rule.limit) return undefined;
    return Math.max(1, Math.ceil((window.startedAt + this.rule.windowMs - this.now()) / 1000));
  }

  /**
   * Counts a failed sign-in and returns the line to log (address and count, never the token): at most `limit`
   * lines per address and window, since past the limit the address is refused before it is counted.
   */
  failed(address: string): string {
    let window = this.current(address);
    if (!window) {
      if (this.windows.size >= this.rule.maxAddresses) this.windows.delete(this.windows.keys().next().value!);
      window = { startedAt: this.now(), failures: 0 };
      this.windows.set(address, window);
    }
    window.failures++;
    const seconds = Math.round(this.rule.windowMs / 1000);
    const count = `failed sign-in from ${address} (${window.failures} of ${this.rule.limit} within ${seconds} s)`;
    return window.failures < this.rule.limit ? count : `${count}: refusing it until the window ends`;
  }

  /** A sign-in that succeeded: the address starts afresh. */
  succeeded(address: string): void {
    this.windows.delete(address);
  }

  private current(address: string): Window | undefined {
    const window = this.windows.get(address);
    if (window && this.now() - window.startedAt >= this.rule.windowMs) {
      this.windows.delete(address);
      return undefined;
    }
    return window;
  }
}
