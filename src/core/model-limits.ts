// --model-limit: per-model caps on submissions in flight and per minute, parsed from
// `MODEL=N` (concurrency), `MODEL=Nrpm` (requests per minute) and `MODEL=N+Nrpm` entries.

export interface ModelLimit {
  /** Submissions of the model in flight at once. */
  concurrency?: number;
  /** Submissions of the model per minute. */
  rpm?: number;
}

export type ModelLimits = ReadonlyMap<string, ModelLimit>;

export const MAX_MODEL_CONCURRENCY = 10_000;

const SHAPE = 'MODEL=N (in flight), MODEL=Nrpm (per minute) or MODEL=N+Nrpm';

/**
 * Every entry of every value (a flag given several times, or a job file's list), merged per model;
 * a string "Expected `--model-limit` ..., got ..." saying what is wrong with the first bad entry.
 */
export function parseModelLimits(values: readonly string[]): ModelLimits | string {
  const limits = new Map<string, ModelLimit>();
  for (const value of values) {
    for (const raw of value.split(',')) {
      const entry = raw.trim();
      if (entry === '')
        return `Expected \`--model-limit\` to be ${SHAPE} entries separated by commas, got an empty entry in \`${value}\``;
      const eq = entry.indexOf('=');
      const model = eq > 0 ? entry.slice(0, eq).trim() : '';
      if (model === '') return `Expected \`--model-limit\` entry to be ${SHAPE}, got \`${entry}\``;
      const limit = { ...limits.get(model) };
      for (const part of entry.slice(eq + 1).split('+')) {
        const parsed = parseLimit(part.trim());
        if (typeof parsed === 'string')
          return `Expected \`--model-limit\` ${parsed} for \`${model}\`, got \`${part.trim()}\` in \`${entry}\``;
        if (limit[parsed.kind] !== undefined) {
          return `Expected \`--model-limit\` to give the ${parsed.kind} of \`${model}\` once, got \`${limit[parsed.kind]}\` and \`${parsed.n}\``;
        }
        limit[parsed.kind] = parsed.n;
      }
      limits.set(model, limit);
    }
  }
  return limits;
}

function parseLimit(text: string): { kind: 'concurrency' | 'rpm'; n: number } | string {
  const rpm = /^(\d+)\s*rpm$/i.exec(text);
  if (rpm) {
    const n = Number(rpm[1]);
    return n >= 1 && Number.isSafeInteger(n) ? { kind: 'rpm', n } : 'rpm to be an integer from 1 and up';
  }
  const n = Number(text);
  if (/^\d+$/.test(text) && n >= 1 && n <= MAX_MODEL_CONCURRENCY) return { kind: 'concurrency', n };
  return `concurrency to be an integer from 1 to ${MAX_MODEL_CONCURRENCY} (or Nrpm for a rate)`;
}
