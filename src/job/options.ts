// Typed option tables for every command: one declaration per flag, parsed by one pure function.
import { parseArgs } from 'node:util';

export class UsageError extends Error {
  readonly code = 'GBATCH_USAGE';
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

interface BaseSpec {
  help: string;
  short?: string;
}
export type OptionSpec =
  | (BaseSpec & { type: 'boolean'; default?: boolean })
  | (BaseSpec & {
      type: 'string';
      default?: string;
      choices?: readonly string[];
      multiple?: boolean;
      /** Checks every value given: a usage error's whole message ("Expected `--flag` ..., got ...") when bad. */
      check?: (values: readonly string[]) => string | undefined;
    })
  | (BaseSpec & { type: 'number'; default?: number; min?: number; max?: number; integer?: boolean })
  | (BaseSpec & { type: 'duration' }); // seconds, or a time of day / ISO instant, resolved by the caller

export type OptionTable = Record<string, OptionSpec>;

/** Every command's `-h, --help`. */
export const HELP_OPTION = { type: 'boolean', short: 'h', help: 'show this help' } as const;

type ValueOf<S extends OptionSpec> = S extends { type: 'boolean' }
  ? boolean
  : S extends { type: 'number'; default: number }
    ? number
    : S extends { type: 'number' }
      ? number | undefined
      : S extends { type: 'string'; multiple: true }
        ? string[]
        : S extends { type: 'string'; default: string }
          ? string
          : S extends { type: 'string' }
            ? string | undefined
            : string | undefined;

export type ParsedOptions<T extends OptionTable> = { [K in keyof T]: ValueOf<T[K]> };

export interface Parsed<T extends OptionTable> {
  options: ParsedOptions<T>;
  positionals: string[];
}

/** Parses argv against a table; throws UsageError saying what was expected and what came. */
export function parseOptions<T extends OptionTable>(table: T, argv: string[]): Parsed<T> {
  const config: Record<string, { type: 'string' | 'boolean'; short?: string; multiple?: boolean }> = {};
  for (const [name, spec] of Object.entries(table)) {
    config[name] = {
      type: spec.type === 'boolean' ? 'boolean' : 'string',
      ...(spec.short ? { short: spec.short } : {}),
      ...(spec.type === 'string' && spec.multiple ? { multiple: true } : {}),
    };
  }
  let raw: { values: Record<string, unknown>; positionals: string[] };
  try {
    raw = parseArgs({ args: argv, options: config, allowPositionals: true, strict: true }) as typeof raw;
  } catch (err) {
    throw new UsageError((err as Error).message.replace(/^TypeError \[[A-Z_]+\]: /, ''));
  }
  const out: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(table)) {
    const value = raw.values[name];
    out[name] = convert(name, spec, value);
  }
  return { options: out as ParsedOptions<T>, positionals: raw.positionals };
}

function convert(name: string, spec: OptionSpec, value: unknown): unknown {
  switch (spec.type) {
    case 'boolean':
      return value === undefined ? (spec.default ?? false) : Boolean(value);
    case 'string': {
      if (value === undefined) return spec.multiple ? [] : spec.default;
      const values = Array.isArray(value) ? (value as string[]) : [value as string];
      if (spec.choices) {
        for (const v of values) {
          if (!spec.choices.includes(v)) {
            throw new UsageError(`Expected \`--${name}\` to be one of ${spec.choices.join(', ')}, got \`${v}\``);
          }
        }
      }
      const bad = spec.check?.(values);
      if (bad !== undefined) throw new UsageError(bad);
      return spec.multiple ? values : values[0];
    }
    case 'number': {
      if (value === undefined) return spec.default;
      const text = String(value).trim();
      const n = Number(text);
      const kind = spec.integer ? 'an integer' : 'a number';
      const range =
        spec.min !== undefined && spec.max !== undefined
          ? ` from ${spec.min} to ${spec.max}`
          : spec.min !== undefined
            ? ` from ${spec.min} and up`
            : spec.max !== undefined
              ? ` up to ${spec.max}`
              : '';
      const ok =
        text !== '' &&
        Number.isFinite(n) &&
        (!spec.integer || Number.isInteger(n)) &&
        (spec.min === undefined || n >= spec.min) &&
        (spec.max === undefined || n <= spec.max);
      if (!ok) throw new UsageError(`Expected \`--${name}\` to be ${kind}${range}, got \`${text}\``);
      return n;
    }
    case 'duration':
      return value === undefined ? undefined : String(value);
  }
}
