// Accounts: one per API key, with a prepaid balance, a model list and a fixed-window rate limit.
// The key is used only to find the account; everything recorded names the account instead.

import { CHAT_MODELS, VIDEO_MODELS } from '../core/models.js';

export interface AccountOptions {
  key: string;
  balanceUsd: number;
  /** Model ids the account may use and sees in /v1/models; default: all. */
  models?: string[];
  revoked?: boolean;
  /** Requests per fixed 60 s window before 429; default: unlimited. */
  rateLimitPerMinute?: number;
}

export const ALL_MODELS: readonly string[] = [...VIDEO_MODELS.map((m) => m.id), ...CHAT_MODELS];
const RATE_WINDOW_MS = 60_000;

export interface Account {
  /** `acct-1`, `acct-2`, ... in the order the accounts were given. */
  readonly name: string;
  readonly initialUsd: number;
  balanceUsd: number;
  readonly models: ReadonlySet<string>;
  readonly modelList: readonly string[];
  revoked: boolean;
  readonly rateLimitPerMinute: number | undefined;
  windowStart: number;
  windowCount: number;
}

export class AccountRegistry {
  private readonly byKey = new Map<string, Account>();
  private readonly byName = new Map<string, Account>();

  constructor(accounts: readonly AccountOptions[]) {
    accounts.forEach((options, i) => {
      const modelList = options.models ?? ALL_MODELS;
      const account: Account = {
        name: `acct-${i + 1}`,
        initialUsd: options.balanceUsd,
        balanceUsd: options.balanceUsd,
        models: new Set(modelList),
        modelList: [...modelList],
        revoked: options.revoked ?? false,
        rateLimitPerMinute: options.rateLimitPerMinute,
        windowStart: 0,
        windowCount: 0,
      };
      this.byKey.set(options.key, account);
      this.byName.set(account.name, account);
    });
  }

  /** The account of a bearer Authorization header; undefined when missing, unknown or revoked. */
  authenticate(authorization: string | undefined): Account | undefined {
    if (authorization === undefined || !authorization.startsWith('Bearer ')) return undefined;
    const account = this.byKey.get(authorization.slice(7).trim());
    return account && !account.revoked ? account : undefined;
  }

  forKey(key: string): Account | undefined {
    return this.byKey.get(key);
  }

  named(name: string): Account | undefined {
    return this.byName.get(name);
  }

  all(): Account[] {
    return [...this.byName.values()];
  }
}

/**
 * Counts a request against the account's fixed 60 s window (aligned to the clock's minute).
 * Returns 0 when admitted, else the whole seconds (>= 1) until the window resets.
 */
export function admitRequest(account: Account, now: number): number {
  const limit = account.rateLimitPerMinute;
  if (limit === undefined) return 0;
  const windowStart = now - (((now % RATE_WINDOW_MS) + RATE_WINDOW_MS) % RATE_WINDOW_MS);
  if (windowStart !== account.windowStart) {
    account.windowStart = windowStart;
    account.windowCount = 0;
  }
  if (account.windowCount < limit) {
    account.windowCount += 1;
    return 0;
  }
  return Math.max(1, Math.ceil((windowStart + RATE_WINDOW_MS - now) / 1000));
}
