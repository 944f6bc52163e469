// Every answer serve gives the SDK, checked against OpenAI's published schema of its route before the SDK sees
// it: a body that does not match fails the test that received it, naming the route and the schema path.
import { onTestFinished } from 'vitest';
import { schemaChecks, type SchemaCheck } from './openai-schemas.js';

const check = schemaChecks();

/** The schema of a successful answer, by method and path under /v1; undefined for a file's content. */
export function schemaOfRoute(method: string, path: string): string | undefined {
  const route = `${method.toUpperCase()} ${path.replace(/^.*?\/v1\//, '/')}`;
  if (/^POST \/files$/.test(route) || /^GET \/files\/[^/]+$/.test(route)) return 'OpenAIFile';
  if (/^GET \/files$/.test(route)) return 'ListFilesResponse';
  if (/^DELETE \/files\/[^/]+$/.test(route)) return 'DeleteFileResponse';
  if (/^GET \/batches$/.test(route)) return 'ListBatchesResponse';
  if (/^(POST \/batches|GET \/batches\/[^/]+|POST \/batches\/[^/]+\/cancel)$/.test(route)) return 'Batch';
  return undefined;
}

/** What is wrong with one answer: its status and body against the route's schema (errors: the envelope). */
export function contractViolations(
  method: string,
  path: string,
  status: number,
  body: string,
  resultFiles: ReadonlySet<string>,
): string[] {
  const route = `${method.toUpperCase()} ${path}`;
  const parse = (text: string): unknown => {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return text;
    }
  };
  const named = (problems: string[]) => problems.map((p) => `${route} (${status}): ${p}`);
  if (status >= 400) return named(check('ErrorResponse')(parse(body)));
  const content = /\/files\/([^/]+)\/content$/.exec(path);
  if (content) {
    if (!resultFiles.has(decodeURIComponent(content[1]!))) return [];
    const lineCheck: SchemaCheck = check('BatchRequestOutput');
    return named(
      body
        .split('\n')
        .filter((l) => l !== '')
        .flatMap((line, i) => lineCheck(parse(line)).map((p) => `line ${i + 1}: ${p}`)),
    );
  }
  const schema = schemaOfRoute(method, path);
  return schema === undefined ? [] : named(check(schema)(parse(body)));
}

/**
 * A fetch for the SDK that checks each answer (and remembers the output and error files of the batches it saw,
 * whose content is then checked line by line). A violation is thrown to the caller and fails the test at its end,
 * even if the caller expected an error.
 */
export function checkedFetch(): typeof fetch {
  const resultFiles = new Set<string>();
  return async (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    const method = init?.method ?? (input instanceof Request ? input.method : 'GET');
    const response = await fetch(input, init);
    const body = await response.clone().text();
    const problems = contractViolations(method, new URL(url).pathname, response.status, body, resultFiles);
    if (problems.length > 0) {
      const failure = new Error(`serve's answer does not follow OpenAI's schema:\n${problems.join('\n')}`);
      try {
        onTestFinished(() => {
          throw failure;
        });
      } catch {
        // Outside a test (a hook): the thrown error below is all there is.
      }
      throw failure;
    }
    if (/^application\/json\s*(;|$)/.test(response.headers.get('content-type') ?? ''))
      rememberResultFiles(body, resultFiles);
    return response;
  };
}

function rememberResultFiles(body: string, into: Set<string>): void {
  const value = JSON.parse(body) as { object?: unknown; data?: unknown };
  const batches = value.object === 'list' && Array.isArray(value.data) ? (value.data as unknown[]) : [value];
  for (const batch of batches as Array<Record<string, unknown>>)
    if (batch.object === 'batch')
      for (const id of [batch.output_file_id, batch.error_file_id]) if (typeof id === 'string') into.add(id);
}
