// What a runner loads of Node itself on its way (scripts/bundle.mjs, its source patches): a fleet's runners
// start together on the same cores, so a run on a PostgreSQL journal loads neither Node's own fetch
// implementation (pg's runtime probe made a `Response` to find out whether it runs in a Cloudflare Worker)
// nor Node's http2 module (undici's HTTP/2 half, which gbatch never negotiates). Node lists the built-in
// modules a process has loaded (`process.moduleLoadList`); a preloaded hook writes that list at exit.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { BUILT, gatewayEnv, runCli } from '../../helpers/cli.js';
import { chatRow, writeJsonl } from '../../helpers/manifests.js';
import { pgAvailable, usePgSchema } from '../../helpers/postgres.js';
import { KEY, startSim } from '../../helpers/sim.js';

const dir = mkdtempSync(join(tmpdir(), 'gbatch-start-modules-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const HOOK = join(dir, 'module-list.cjs');
const LIST = join(dir, 'modules.json');
writeFileSync(
  HOOK,
  `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(LIST)}, JSON.stringify(process.moduleLoadList)));`,
);

describe.skipIf(!BUILT || !pgAvailable())('a run on a PostgreSQL journal, from spawn to exit', () => {
  const db = usePgSchema('gbatch_start_modules');

  test("loads neither Node's fetch implementation nor its http2 module", async () => {
    const sim = await startSim();
    const manifest = writeJsonl(join(dir, 'chat.jsonl'), [chatRow('c1', 'one'), chatRow('c2', 'two')]);
    const ran = await runCli(['run', manifest, '--journal', db.url(), '--out', join(dir, 'out'), '--quiet'], {
      env: { ...gatewayEnv(sim.baseUrl, KEY), NODE_OPTIONS: `--require ${HOOK}` },
    });
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stdout).toBe('Finished: 2 downloaded.\n');
    const loaded = JSON.parse(readFileSync(LIST, 'utf8')) as string[];
    // The list is real: the run loaded the modules it does use.
    expect(loaded).toContain('NativeModule net');
    expect(loaded).toContain('NativeModule http');
    expect(loaded.filter((m) => /undici|http2|fetch/.test(m))).toEqual([]);
  });
});
