// OpenAI's published schemas (test/fixtures/openai-batch-schemas.json) as JSON-schema validators. The document
// mixes OpenAPI 3.1 (`anyOf [.., {type: null}]`) with a 3.0 schema (`nullable: true`, which JSON schema does not
// know), and refers by `#/components/schemas/NAME`: both are turned into draft-07 here.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv from 'ajv';
import { ROOT } from './workspace.js';

type Schema = Record<string, unknown>;

export interface SchemaFixture {
  sources: Array<{ repository: string; path: string; commit: string; openapi: string; schemas: string[] }>;
  schemas: Record<string, Schema>;
}

export const FIXTURE = JSON.parse(
  readFileSync(join(ROOT, 'test/fixtures/openai-batch-schemas.json'), 'utf8'),
) as SchemaFixture;

/** One OpenAPI schema as draft-07 JSON schema: `nullable` becomes a `null` type, component refs become definitions. */
export function toJsonSchema(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(toJsonSchema);
  if (node === null || typeof node !== 'object') return node;
  const { nullable, ...rest } = node as Schema;
  const out: Schema = {};
  for (const [key, value] of Object.entries(rest))
    out[key] =
      key === '$ref' && typeof value === 'string'
        ? value.replace('#/components/schemas/', '#/definitions/')
        : toJsonSchema(value);
  if (nullable !== true) return out;
  if (typeof out.type === 'string') out.type = [out.type, 'null'];
  if (Array.isArray(out.enum)) out.enum = [...(out.enum as unknown[]), null];
  return typeof out.type === 'object' ? out : { anyOf: [out, { type: 'null' }] };
}

export type SchemaCheck = (value: unknown) => string[];

/** A check per schema name: what is wrong with a value, each as `<where>: <message> (schema <name>/<path>)`. */
export function schemaChecks(fixture: SchemaFixture = FIXTURE): (name: string) => SchemaCheck {
  const ajv = new Ajv({ allErrors: true });
  ajv.addFormat('unixtime', { type: 'number', validate: (n: number) => Number.isInteger(n) && n >= 0 });
  const definitions = toJsonSchema(fixture.schemas) as Record<string, Schema>;
  ajv.addSchema({ $id: 'openai', definitions }, 'openai');
  return (name) => {
    if (!(name in definitions)) throw new Error(`no schema ${name} in the fixture`);
    const validate = ajv.getSchema(`openai#/definitions/${name}`)!;
    return (value) =>
      validate(value)
        ? []
        : (validate.errors ?? []).map(
            (e) =>
              `${name}${e.dataPath || ''}: ${e.message ?? 'invalid'} (schema ${name}${e.schemaPath.replace(/^#/, '')})`,
          );
  };
}
