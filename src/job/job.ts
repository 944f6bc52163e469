// A job: a JSON file in jobs/ naming manifests and options, or a bare manifest path. Resolves the
// run's configuration: job options under command-line flags, then defaults.
import { basename, extname, join } from 'node:path';
import { DEFAULT_DRAIN } from '../core/deadline.js';
import { BUILTIN_PRICING, BUILTIN_PRICING_SOURCE, parsePricing, type PricingTable } from '../core/pricing.js';
import { readBoundedText } from '../io/bounded-read.js';
import type { JobFileBudget } from '../core/job-budget.js';
import { apiKeyFromEnv } from './api-key.js';
import { asUsage, isJobFile, readJobFile, stripUndefined } from './job-file.js';
import { journalFlagsOver, journalLocation } from './job-journal.js';
import { parseDeadline, parseDrain } from './deadline.js';
import { UsageError } from './options.js';
import { RUN_DEFAULTS, type RunFlags } from './run-options.js';

export interface ResolvedJob {
  name: string;
  /** The job file, or the manifest when a manifest was given directly. */
  source: string;
  manifests: string[];
  /** The journal: an SQLite file's path, or a database URL. */
  statePath: string;
  /** The database URL came from GBATCH_JOURNAL_URL (advice need not repeat it). */
  journalFromEnv: boolean;
  /** --journal or --state given over the job's own journal: the job alone no longer finds it. */
  journalMoved: boolean;
  outDir: string;
  pricing: PricingTable;
  pricingSource: string;
  flags: RunFlags;
  /** --budget / --no-budget given explicitly (the command line, or runJob's options): they always win. */
  budgetFlag: { given: number | undefined; lift: boolean };
  /** What the job file says of the budget (its value applies at creation or when it changes: budgetInForce). */
  fileBudget: JobFileBudget;
  deadlineAt?: number;
  /** After the deadline, how long tasks in flight are still polled and downloaded (`--drain`). */
  drainMs: number;
}

export function resolveJob(
  target: string | undefined,
  cli: Partial<RunFlags>,
  now: Date,
  env: NodeJS.ProcessEnv = process.env,
): ResolvedJob {
  if (!target) throw new UsageError('Expected a job file (jobs/<name>.json) or a manifest (.csv, .jsonl)');
  let name: string;
  let manifests: string[];
  let fromJob: Partial<RunFlags> = {};
  if (isJobFile(target)) {
    const file = readJobFile(target);
    name = file.name;
    manifests = file.manifests;
    fromJob = file.options;
  } else {
    name = basename(target, extname(target)).replace(/[^A-Za-z0-9._-]/g, '_');
    manifests = [target];
  }
  const flags = budgetFlags({ ...RUN_DEFAULTS, ...fromJob, ...stripUndefined(cli) } as RunFlags, fromJob, cli, target);
  Object.assign(flags, journalFlagsOver(fromJob, cli));
  const { table: pricing, source: pricingSource } = resolvePricing(flags.pricing);
  return {
    name,
    source: target,
    manifests,
    ...runJournal(flags, name, env),
    journalMoved: cli.journal !== undefined || cli.state !== undefined,
    outDir: flags.out ?? join('out', name),
    pricing,
    pricingSource,
    flags,
    budgetFlag: { given: cli['no-budget'] ? undefined : cli.budget, lift: cli['no-budget'] === true },
    fileBudget: fromJob['no-budget'] ? 'none' : (fromJob.budget ?? 'unset'),
    ...(flags.deadline ? { deadlineAt: parseDeadline(flags.deadline, now) } : {}),
    drainMs: parseDrain(flags.drain ?? DEFAULT_DRAIN),
  };
}

/** `--budget` and `--no-budget` in one place contradict; the command line overrides the job file's choice. */
function budgetFlags(flags: RunFlags, fromJob: Partial<RunFlags>, cli: Partial<RunFlags>, target: string): RunFlags {
  if (cli.budget !== undefined && cli['no-budget'])
    throw new UsageError('--budget and --no-budget contradict each other: give one');
  if (fromJob.budget !== undefined && fromJob['no-budget'])
    throw new UsageError(`${target}: job options 'budget' and 'no-budget' contradict each other`);
  const merged = { ...flags };
  if (cli['no-budget']) delete merged.budget;
  else if (cli.budget !== undefined) merged['no-budget'] = false;
  return merged;
}

/** The journal by the rule every command follows (job-journal.ts). */
/** The pricing table a --pricing file gives (a usage error naming the file and field), or the built-in one. */
export function resolvePricing(file: string | undefined): { table: PricingTable; source: string } {
  if (file === undefined) return { table: BUILTIN_PRICING, source: BUILTIN_PRICING_SOURCE };
  const text = asUsage(() => readBoundedText(file, 'pricing file'));
  try {
    return { table: parsePricing(text, file), source: file };
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

function runJournal(
  flags: RunFlags,
  name: string,
  env: NodeJS.ProcessEnv,
): { statePath: string; journalFromEnv: boolean } {
  const { location, fromEnv } = journalLocation(flags, name, env);
  return { statePath: location, journalFromEnv: fromEnv };
}

export interface GatewayAccess {
  baseUrl: string;
  apiKey: string;
}

/** The key comes only from the environment, so it never sits in shell history or `ps` output. */
export function gatewayAccess(flags: { 'base-url'?: string }, env: NodeJS.ProcessEnv): GatewayAccess {
  return { baseUrl: gatewayBaseUrl(flags, env), apiKey: apiKeyFromEnv(env) };
}

/** The gateway's base URL (--base-url, else GATEWAY_BASE_URL), checked: a usage error when missing or malformed. */
export function gatewayBaseUrl(flags: { 'base-url'?: string }, env: NodeJS.ProcessEnv): string {
  const baseUrl = flags['base-url'] ?? env.GATEWAY_BASE_URL;
  if (!baseUrl)
    throw new UsageError('No gateway: set GATEWAY_BASE_URL or pass --base-url (e.g. http://127.0.0.1:8080/v1)');
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new UsageError(`Expected the gateway base URL to be an http(s) URL, got \`${baseUrl}\``);
  }
  // Credentials first: a URL carrying them is never echoed back.
  if (url.username || url.password)
    throw new UsageError('The gateway base URL must not carry credentials; set GATEWAY_API_KEY');
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(`Expected the gateway base URL to be an http(s) URL, got \`${baseUrl}\``);
  }
  return baseUrl.replace(/\/+$/, '');
}
