// Small checks shared by the request validators. Each returns the first problem found, naming the
// field in `param` as the gateway does (spec 7.1); a null value counts as omitted.

export interface Invalid {
  param: string;
  message: string;
  code: 'invalid_value' | 'invalid_type' | 'missing_required_parameter';
}

export type Body = Record<string, unknown>;

export function invalid(param: string, message: string, code: Invalid['code'] = 'invalid_value'): Invalid {
  return { param, message, code };
}

export function isObject(value: unknown): value is Body {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

export function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string')
    return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}...` : value)}`;
  if (typeof value === 'object') return 'an object';
  return `${typeof value} ${String(value)}`;
}

interface NumberRule {
  min?: number;
  max?: number;
  integer?: boolean;
}

export function checkNumber(param: string, value: unknown, rule: NumberRule = {}): Invalid | undefined {
  if (value === undefined || value === null) return undefined;
  const kind = rule.integer ? 'an integer' : 'a number';
  if (typeof value !== 'number' || !Number.isFinite(value) || (rule.integer && !Number.isInteger(value))) {
    return invalid(param, `'${param}' must be ${kind}, got ${describe(value)}`, 'invalid_type');
  }
  if ((rule.min !== undefined && value < rule.min) || (rule.max !== undefined && value > rule.max)) {
    const range =
      rule.max === undefined
        ? `at least ${rule.min}`
        : rule.min === undefined
          ? `at most ${rule.max}`
          : `from ${rule.min} to ${rule.max}`;
    return invalid(param, `'${param}' must be ${range}, got ${value}`);
  }
  return undefined;
}

export function checkString(param: string, value: unknown): Invalid | undefined {
  if (value === undefined || value === null || typeof value === 'string') return undefined;
  return invalid(param, `'${param}' must be a string, got ${describe(value)}`, 'invalid_type');
}

export function checkBoolean(param: string, value: unknown): Invalid | undefined {
  if (value === undefined || value === null || typeof value === 'boolean') return undefined;
  return invalid(param, `'${param}' must be a boolean, got ${describe(value)}`, 'invalid_type');
}

export function checkObject(param: string, value: unknown): Invalid | undefined {
  if (value === undefined || value === null || isObject(value)) return undefined;
  return invalid(param, `'${param}' must be an object, got ${describe(value)}`, 'invalid_type');
}

export function checkEnum(param: string, value: unknown, allowed: readonly string[]): Invalid | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string' && allowed.includes(value)) return undefined;
  return invalid(param, `'${param}' must be one of ${allowed.map((a) => `'${a}'`).join(', ')}, got ${describe(value)}`);
}

export function checkArrayOfObjects(param: string, value: unknown): Invalid | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value))
    return invalid(param, `'${param}' must be an array of objects, got ${describe(value)}`, 'invalid_type');
  const bad = value.findIndex((item) => !isObject(item));
  return bad === -1
    ? undefined
    : invalid(`${param}[${bad}]`, `'${param}[${bad}]' must be an object, got ${describe(value[bad])}`, 'invalid_type');
}

/** A string, or an object (tool_choice-like fields); a string must be one of `allowed` when given. */
export function checkStringOrObject(param: string, value: unknown, allowed?: readonly string[]): Invalid | undefined {
  if (value === undefined || value === null || isObject(value)) return undefined;
  if (typeof value === 'string') return allowed ? checkEnum(param, value, allowed) : undefined;
  return invalid(param, `'${param}' must be a string or an object, got ${describe(value)}`, 'invalid_type');
}

export function checkRequiredModel(body: Body): Invalid | undefined {
  if (body.model === undefined || body.model === null)
    return invalid('model', "'model' is required", 'missing_required_parameter');
  if (typeof body.model !== 'string' || body.model.trim() === '') {
    return invalid('model', `'model' must be a non-empty string, got ${describe(body.model)}`, 'invalid_type');
  }
  return undefined;
}

/** A check of one field of a request body. */
export type FieldRule = (body: Body) => Invalid | undefined;

/** The value at a dotted path (`stream_options.include_usage`); undefined where a parent is not an object. */
function valueAt(body: Body, path: string): unknown {
  let value: unknown = body;
  for (const key of path.split('.')) value = isObject(value) ? value[key] : undefined;
  return value;
}

/** The rule that checks the value at a path with one of the checks above. */
const atPath =
  (check: (param: string, value: unknown) => Invalid | undefined) =>
  (path: string): FieldRule =>
  (body) =>
    check(path, valueAt(body, path));

/** The rules of the usual kinds of field, each named by its path. */
export const field = {
  number: (path: string, rule?: NumberRule): FieldRule => atPath((p, v) => checkNumber(p, v, rule))(path),
  string: atPath(checkString),
  boolean: atPath(checkBoolean),
  object: atPath(checkObject),
  oneOf: (path: string, allowed: readonly string[]): FieldRule => atPath((p, v) => checkEnum(p, v, allowed))(path),
  objects: atPath(checkArrayOfObjects),
  stringOrObject: (path: string, allowed?: readonly string[]): FieldRule =>
    atPath((p, v) => checkStringOrObject(p, v, allowed))(path),
};

/** The first problem of the body, its rules checked in order. */
export function checkFields(body: Body, rules: readonly FieldRule[]): Invalid | undefined {
  for (const rule of rules) {
    const problem = rule(body);
    if (problem) return problem;
  }
  return undefined;
}
