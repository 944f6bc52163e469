// `gbatch sim` flags: one typed table, and a pure conversion from argv to SimulatorOptions.

import { RESOLUTIONS, type Resolution } from '../core/models.js';
import { HELP_OPTION, parseOptions, UsageError, type OptionTable } from '../job/options.js';
import { DEFAULT_API_KEY, DEFAULT_BALANCE_USD, DEFAULT_TASK_SECONDS } from './options.js';
import type { AccountOptions, ErrorFlavor, PollShape, SimulatorOptions } from './types.js';

const rate = (help: string) => ({ type: 'number', min: 0, max: 1, default: 0, help }) as const;

export const SIM_OPTIONS = {
  port: { type: 'number', integer: true, min: 0, max: 65535, default: 8080, help: 'port; 0 picks a free one' },
  host: { type: 'string', default: '127.0.0.1', help: 'address to listen on (keep it on loopback)' },
  'api-key': {
    type: 'string',
    multiple: true,
    help: `KEY[=USD]: an account and its prepaid balance; repeatable (default ${DEFAULT_API_KEY}=${DEFAULT_BALANCE_USD})`,
  },
  'task-seconds': {
    type: 'number',
    min: 0,
    default: DEFAULT_TASK_SECONDS,
    help: 'seconds from a video submission to SUCCESS',
  },
  'latency-ms': { type: 'number', min: 0, default: 0, help: 'added latency per request' },
  'latency-jitter-ms': { type: 'number', min: 0, default: 0, help: 'plus a random share of this much latency' },
  'error-rate': rate('fraction of requests answered 500/502/503 (or 502/504 with --error-flavor)'),
  'error-flavor': {
    type: 'string',
    choices: ['envelope', 'intermediary', 'mixed'],
    default: 'envelope',
    help: "envelope: the gateway's JSON error, nothing kept; intermediary: 504/502 HTML after the work was done; mixed: either",
  },
  'rate-limit': {
    type: 'number',
    integer: true,
    min: 1,
    help: 'requests per minute per key before 429 with Retry-After',
  },
  'fail-rate': rate('fraction of video tasks that end in FAILURE (refunded)'),
  shape: { type: 'string', choices: ['a', 'b'], default: 'a', help: 'polling response shape (spec 2.11)' },
  seed: { type: 'number', integer: true, default: 1, help: 'seed for every random choice' },
  'token-noise': rate('final tokens are the formula times (1 - noise x u), u random in [0, 1)'),
  'accept-then-drop-rate': rate('chat, responses and video submissions: do the work, then close the socket unanswered'),
  'truncate-rate': rate('downloads that announce the full length but stop after half'),
  'final-resolution': {
    type: 'string',
    choices: RESOLUTIONS,
    help: 'every video comes out at this resolution when its tier supports it',
  },
  'final-resolution-rate': rate('fraction of videos that come out at another resolution of their tier'),
  'video-bytes': { type: 'number', integer: true, min: 1, help: 'pad the served MP4 to this size (a free box)' },
  'group-ratio': { type: 'number', min: 0.000001, default: 1, help: 'group ratio applied to every price' },
  admin: {
    type: 'boolean',
    help: 'serve GET and POST /__sim/faults: read and change the fault flags while the simulator runs (loopback only, with one of the --api-key keys as bearer token)',
  },
  state: {
    type: 'string',
    help: 'keep tasks, ledger, balances and the random sequence in this file: restored at start when it exists (then --seed and the --api-key balances do not apply), written after every change, atomically',
  },
  help: HELP_OPTION,
} satisfies OptionTable;

const NUMERIC = /^\s*\+?(\d+(\.\d*)?|\.\d+)\s*$/;

/** `KEY` or `KEY=USD`. The key itself never appears in an error message. */
export function parseApiKey(value: string, index: number): AccountOptions {
  const eq = value.lastIndexOf('=');
  if (eq === -1) {
    if (value.trim() === '')
      throw new UsageError(`Expected \`--api-key\` #${index + 1} to be KEY or KEY=USD, got an empty value`);
    return { key: value, balanceUsd: DEFAULT_BALANCE_USD };
  }
  const key = value.slice(0, eq);
  const usd = value.slice(eq + 1);
  if (key.trim() === '')
    throw new UsageError(`Expected \`--api-key\` #${index + 1} to be KEY or KEY=USD, got an empty key`);
  if (!NUMERIC.test(usd)) {
    throw new UsageError(
      `Expected the balance of \`--api-key\` #${index + 1} (after '=') to be a number of USD from 0 and up, got \`${usd}\``,
    );
  }
  return { key, balanceUsd: Number(usd) };
}

export type SimCommandLine = { help: true } | { help: false; options: SimulatorOptions };

export function simOptionsFromArgs(argv: string[]): SimCommandLine {
  const { options: o, positionals } = parseOptions(SIM_OPTIONS, argv);
  if (o.help) return { help: true };
  if (positionals.length > 0) throw new UsageError(`gbatch sim takes no arguments, got \`${positionals[0]}\``);
  const keys = o['api-key'].length > 0 ? o['api-key'] : [DEFAULT_API_KEY];
  const accounts = keys.map((value, i) => {
    const account = parseApiKey(value, i);
    return o['rate-limit'] === undefined ? account : { ...account, rateLimitPerMinute: o['rate-limit'] };
  });
  if (new Set(accounts.map((a) => a.key)).size !== accounts.length) {
    throw new UsageError('Expected every `--api-key` to name a different key, got the same key twice');
  }
  const finalResolution = o['final-resolution'] as Resolution | undefined;
  return {
    help: false,
    options: {
      port: o.port,
      host: o.host,
      accounts,
      taskSeconds: o['task-seconds'],
      seed: o.seed,
      shape: o.shape as PollShape,
      groupRatio: o['group-ratio'],
      tokenNoise: o['token-noise'],
      ...(o['video-bytes'] !== undefined ? { videoBytes: o['video-bytes'] } : {}),
      ...(o.admin ? { admin: true } : {}),
      ...(o.state !== undefined ? { stateFile: o.state } : {}),
      faults: {
        latencyMs: o['latency-ms'],
        latencyJitterMs: o['latency-jitter-ms'],
        errorRate: o['error-rate'],
        errorFlavor: o['error-flavor'] as ErrorFlavor,
        acceptThenDropRate: o['accept-then-drop-rate'],
        truncateDownloadRate: o['truncate-rate'],
        failRate: o['fail-rate'],
        finalResolutionRate: o['final-resolution-rate'],
        ...(finalResolution !== undefined ? { finalResolution } : {}),
      },
    },
  };
}
