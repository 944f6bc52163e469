// A strict reader of the Prometheus text exposition format (version 0.0.4): every line must be a
// HELP, a TYPE, a comment or a sample; a sample must belong to a family whose TYPE came first; a
// malformed line throws, naming it. Tests read /metrics and pushed bodies with it.

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Exposition {
  types: Map<string, string>;
  samples: Sample[];
  /** The value of the one sample with this name and these labels (exactly), or undefined. */
  value(name: string, labels?: Record<string, string>): number | undefined;
  /** The sum of every sample with this name whose labels include these. */
  sum(name: string, labels?: Record<string, string>): number;
}

const NAME = '[a-zA-Z_:][a-zA-Z0-9_:]*';
const LABEL = '[a-zA-Z_][a-zA-Z0-9_]*';
const VALUE = '(?:[+-]?(?:\\d+(?:\\.\\d*)?|\\.\\d+)(?:[eE][+-]?\\d+)?|[+-]Inf|NaN)';
const SAMPLE = new RegExp(`^(${NAME})(?:\\{(.*)\\})? (${VALUE})(?: (-?\\d+))?$`);
const HELP = new RegExp(`^# HELP (${NAME}) (.*)$`);
const TYPE = new RegExp(`^# TYPE (${NAME}) (counter|gauge|histogram|summary|untyped)$`);
const LABEL_PAIR = new RegExp(`^(${LABEL})="((?:[^"\\\\\\n]|\\\\[\\\\"n])*)"(,|$)`);
const SUFFIXES: Record<string, string[]> = {
  counter: [''],
  gauge: [''],
  untyped: [''],
  histogram: ['_bucket', '_sum', '_count'],
  summary: ['', '_sum', '_count'],
};

export function parseExposition(text: string): Exposition {
  if (!text.endsWith('\n')) throw new Error('exposition does not end with a newline');
  const types = new Map<string, string>();
  const samples: Sample[] = [];
  const lines = text.slice(0, -1).split('\n');
  lines.forEach((line, index) => {
    const where = `line ${index + 1}: ${JSON.stringify(line)}`;
    if (line === '') return; // an empty line is allowed between families
    if (line.startsWith('# HELP ')) {
      if (!HELP.test(line)) throw new Error(`malformed HELP, ${where}`);
      return;
    }
    if (line.startsWith('# TYPE ')) {
      const match = TYPE.exec(line);
      if (!match) throw new Error(`malformed TYPE, ${where}`);
      if (types.has(match[1]!)) throw new Error(`second TYPE for ${match[1]}, ${where}`);
      types.set(match[1]!, match[2]!);
      return;
    }
    if (line.startsWith('#')) return;
    const match = SAMPLE.exec(line);
    if (!match) throw new Error(`malformed sample, ${where}`);
    const [, name, labelText, valueText] = match;
    const family = familyOf(name!, types);
    if (family === undefined) throw new Error(`sample of no declared family, ${where}`);
    const labels = parseLabels(labelText ?? '', where);
    if (types.get(family) === 'histogram' && name!.endsWith('_bucket') && labels.le === undefined)
      throw new Error(`histogram bucket without le, ${where}`);
    samples.push({ name: name!, labels, value: parseValue(valueText!) });
  });
  const matches = (sample: Sample, labels: Record<string, string>): boolean =>
    Object.entries(labels).every(([k, v]) => sample.labels[k] === v);
  return {
    types,
    samples,
    value(name, labels = {}) {
      const found = samples.filter(
        (s) => s.name === name && matches(s, labels) && Object.keys(s.labels).length === Object.keys(labels).length,
      );
      if (found.length > 1) throw new Error(`${found.length} samples of ${name} ${JSON.stringify(labels)}`);
      return found[0]?.value;
    },
    sum(name, labels = {}) {
      return samples.filter((s) => s.name === name && matches(s, labels)).reduce((a, s) => a + s.value, 0);
    },
  };
}

function familyOf(name: string, types: Map<string, string>): string | undefined {
  for (const [family, type] of types) {
    if (SUFFIXES[type]!.some((suffix) => name === `${family}${suffix}`)) return family;
  }
  return undefined;
}

function parseLabels(text: string, where: string): Record<string, string> {
  const labels: Record<string, string> = {};
  let rest = text;
  while (rest !== '') {
    const match = LABEL_PAIR.exec(rest);
    if (!match) throw new Error(`malformed labels, ${where}`);
    if (match[1]! in labels) throw new Error(`label ${match[1]} twice, ${where}`);
    labels[match[1]!] = match[2]!.replace(/\\(["\\n])/g, (_, c: string) => (c === 'n' ? '\n' : c));
    rest = rest.slice(match[0].length);
    if (match[3] === '' && rest !== '') throw new Error(`malformed labels, ${where}`);
  }
  return labels;
}

function parseValue(text: string): number {
  if (text === '+Inf') return Infinity;
  if (text === '-Inf') return -Infinity;
  return Number(text);
}

/** `gbatch_rows` by kind and state, as `tallyByKind` shapes them (a missing series reads as undefined). */
export function rowsByKind(
  metrics: Exposition,
  kinds: readonly string[],
  states: readonly string[],
  labels: Record<string, string> = {},
): Record<string, Record<string, number | undefined>> {
  return Object.fromEntries(
    kinds.map((kind) => [
      kind,
      Object.fromEntries(states.map((state) => [state, metrics.value('gbatch_rows', { ...labels, kind, state })])),
    ]),
  );
}
