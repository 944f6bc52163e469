// What the bundle leaves out of undici and zod (scripts/bundle.mjs): N runners of a job parse the bundle at
// once on the same cores, so it holds only the parts gbatch uses. That those parts work from it, every
// test running the built CLI shows (requests through Pool, webhooks through Agent, zod's messages).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { BUILT } from '../../helpers/cli.js';
import { ROOT } from '../../helpers/workspace.js';

const BUNDLE = join(ROOT, 'dist', 'bundle');

test.skipIf(!BUILT)(
  "the bundle holds neither undici's websockets, mocks, caches and cookies nor zod's other locales",
  () => {
    const sources = readdirSync(BUNDLE)
      .filter((f) => f.endsWith('.js'))
      .map((f) => readFileSync(join(BUNDLE, f), 'utf8'))
      .join('\n');
    expect(sources).toMatch(/node_modules\/undici\/lib\/dispatcher\/pool\.js/);
    expect(sources).not.toMatch(
      /node_modules\/undici\/lib\/(web\/websocket|web\/cookies|web\/eventsource|mock|cache)\//,
    );
    expect(sources).toMatch(/node_modules\/zod\/v4\/locales\/en\.js/);
    expect(sources).not.toMatch(/node_modules\/zod\/v4\/locales\/(?!en\.js)[a-z-]+\.js/);
  },
);

/** The bundle's files a module loads before it runs: its static imports, followed (dynamic imports left out). */
function staticClosure(entry: string): string[] {
  const seen = new Set<string>();
  const visit = (file: string): void => {
    if (seen.has(file)) return;
    seen.add(file);
    const source = readFileSync(join(BUNDLE, file), 'utf8');
    for (const m of source.matchAll(
      /^(?:import|export)\s[^;]*?from\s*"\.\/([\w.-]+\.js)"|^import\s*"\.\/([\w.-]+\.js)"/gm,
    ))
      visit((m[1] ?? m[2])!);
  };
  visit(entry);
  return [...seen];
}

test.skipIf(!BUILT)(
  'gbatch starts, and `status` and `report` run, without loading a run: no lane, no gateway client',
  () => {
    const command = (name: string) => readdirSync(BUNDLE).find((f) => new RegExp(`^${name}-\\w+\\.js$`).test(f))!;
    for (const entry of ['main.js', command('status'), command('report')]) {
      const loaded = staticClosure(entry)
        .map((f) => readFileSync(join(BUNDLE, f), 'utf8'))
        .join('\n');
      expect(loaded, entry).toMatch(/\/\/ dist\/pipeline\/exit-code\.js|\/\/ dist\/core\/exit-codes\.js/);
      expect(loaded, entry).not.toMatch(/\/\/ dist\/pipeline\/runner\.js/);
      expect(loaded, entry).not.toMatch(/\/\/ node_modules\/undici\//);
    }
  },
);
