// A job file (jobs/<name>.json): its name, its manifests and its options as `gbatch run` flags, paths
// relative to the file. Read by `run` and `plan`, and by every command that finds a job's journal.
import { basename, dirname, extname, isAbsolute, join } from 'node:path';
import { z } from 'zod';
import { ConfigError } from '../core/config-error.js';
import { isObjectLocation } from '../core/object-location.js';
import { readBoundedText } from '../io/bounded-read.js';
import { isDatabaseUrl } from '../journal/open-store.js';
import { parseOptions, UsageError } from './options.js';
import { RUN_OPTIONS } from './run-options.js';
import type { RunFlags } from './run-options.js';

const jobFileSchema = z
  .object({
    name: z
      .string()
      .regex(/^[A-Za-z0-9._-]+$/, 'use letters, digits, dot, dash, underscore')
      .optional(),
    manifest: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]),
    options: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.array(z.string())])).default({}),
  })
  .strict();

export interface JobFile {
  name: string;
  manifests: string[];
  options: Partial<RunFlags>;
}

const NOT_IN_JOB_FILES = new Set(['help', 'json', 'state', 'quiet', 'progress']);

/** Whether a job argument names a job file rather than a manifest or a bare job name. */
export function isJobFile(target: string): boolean {
  return extname(target).toLowerCase() === '.json';
}

export function readJobFile(target: string): JobFile {
  const text = asUsage(() => readBoundedText(target, 'job file'));
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new UsageError(`${target}: cannot read job file: ${(err as Error).message}`);
  }
  const parsed = jobFileSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new UsageError(`${target}: job field '${issue.path.join('.') || '(root)'}': ${issue.message}`);
  }
  const listed = Array.isArray(parsed.data.manifest) ? parsed.data.manifest : [parsed.data.manifest];
  const options = jobFileFlags(target, parsed.data.options);
  return {
    name: parsed.data.name ?? basename(target, extname(target)),
    manifests: listed.map((m) => relativeTo(target, m)),
    // Paths in a job file are relative to the job file, like its manifests.
    options: {
      ...options,
      ...(options.pricing ? { pricing: relativeTo(target, options.pricing) } : {}),
      ...(options.out && !isObjectLocation(options.out) ? { out: relativeTo(target, options.out) } : {}),
      ...(options.state ? { state: relativeTo(target, options.state) } : {}),
      ...(options.journal && !isDatabaseUrl(options.journal) ? { journal: relativeTo(target, options.journal) } : {}),
    },
  };
}

function jobFileFlags(file: string, options: Record<string, string | number | boolean | string[]>): Partial<RunFlags> {
  const argv: string[] = [];
  for (const [key, value] of Object.entries(options)) {
    if (!(key in RUN_OPTIONS) || NOT_IN_JOB_FILES.has(key)) {
      throw new UsageError(
        `${file}: unknown job option '${key}' (job options use the flag names of \`gbatch run\`, e.g. "budget", "poll-interval")`,
      );
    }
    const spec = RUN_OPTIONS[key as keyof typeof RUN_OPTIONS];
    if (Array.isArray(value)) {
      // A list is for a repeatable option (notify): one flag per entry.
      if (spec.type !== 'string' || !('multiple' in spec))
        throw new UsageError(`${file}: job option '${key}' takes one value, got a list`);
      for (const entry of value) argv.push(`--${key}=${entry}`);
    } else if (spec.type === 'boolean') {
      if (typeof value !== 'boolean')
        throw new UsageError(`${file}: job option '${key}' must be true or false, got ${JSON.stringify(value)}`);
      if (value) argv.push(`--${key}`);
    } else {
      // `--key=value` keeps a negative number a value (parseArgs calls `--budget -1` ambiguous).
      argv.push(`--${key}=${String(value)}`);
    }
  }
  try {
    return stripUndefined(parseOptions(RUN_OPTIONS, argv).options);
  } catch (err) {
    throw new UsageError(`${file}: ${(err as Error).message.replace(/`--([a-z-]+)`/, "job option '$1'")}`);
  }
}

export function stripUndefined<T extends object>(value: T): Partial<T> {
  // An empty list is a repeatable flag not given: the job file's list then stays.
  return Object.fromEntries(
    Object.entries(value).filter(([, v]) => v !== undefined && v !== false && !(Array.isArray(v) && v.length === 0)),
  ) as Partial<T>;
}

export function asUsage<T>(read: () => T): T {
  try {
    return read();
  } catch (err) {
    throw err instanceof ConfigError ? new UsageError(err.message) : err;
  }
}

function relativeTo(jobFile: string, path: string): string {
  return isAbsolute(path) ? path : join(dirname(jobFile), path);
}
