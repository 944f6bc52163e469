// Bundles the compiled CLI (dist/) into dist/bundle/: one file per command, loaded on demand, with
// zod, undici, csv-parse and p-queue inside. Node then reads and resolves a handful of files instead
// of hundreds: `gbatch run` starts in about half the time (BENCHMARKS.md).
// Paths the code computes from its own location must hold from dist/bundle/ as from dist/<module>/:
// the scan worker is an entry of its own beside the chunks, and both folders are two levels below the
// package root (the simulator's video asset is ../../assets/ from either).
import { build } from 'esbuild';
import { cpSync, existsSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

// The journal's schema steps (src/journal/<adapter>/migrations/*.sql) and stored functions
// (src/journal/postgres/functions/*.sql) are read from beside the module that lists them: tsc leaves
// them out of dist/, so they are copied there; the bundle, which has no folder of its own for them,
// embeds them (embedMigrations below).
const sqlFolders = [
  ['sqlite', 'migrations'],
  ['postgres', 'migrations'],
  ['postgres', 'functions'],
];
for (const [adapter, folder] of sqlFolders) {
  const to = join(root, 'dist', 'journal', adapter, folder);
  rmSync(to, { recursive: true, force: true });
  cpSync(join(root, 'src', 'journal', adapter, folder), to, { recursive: true });
}
const { readFunctions, readMigrations } = await import('../dist/journal/migration-files.js');
const embedMigrations = {
  name: 'embed-migrations',
  setup(bundle) {
    bundle.onLoad({ filter: /[\\/]dist[\\/]journal[\\/](sqlite|postgres)[\\/]schema-steps\.js$/ }, (args) => {
      const folder = (name) => pathToFileURL(join(dirname(args.path), `${name}/`));
      const functions = existsSync(folder('functions'))
        ? `export const FUNCTIONS = ${JSON.stringify(readFunctions(folder('functions')))};`
        : '';
      return {
        loader: 'js',
        contents: `export const MIGRATIONS = ${JSON.stringify(readMigrations(folder('migrations')))};${functions}`,
      };
    });
  },
};

// Every process parses what it loads, and N runners of one job start at once on the same cores (issue 11).
// Two packages' entries load far more than gbatch uses; the bundle takes only what it does:
// - undici's index loads every module it has (fetch, websockets, caches, mocks: 1.1 MB, ~60 ms of CPU at
//   each start); gbatch uses Agent and Pool, and the Dispatcher API on them (`request`, `compose`), as
//   the index sets it up.
// - zod's entries export every locale (370 KB) for `z.locales`, which gbatch never calls; messages are
//   English (the default, which zod loads on its own).
const slimDependencies = {
  name: 'slim-dependencies',
  setup(bundle) {
    bundle.onResolve({ filter: /^undici$/ }, () => ({ path: 'undici', namespace: 'slim' }));
    bundle.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      /[\\/]zod[\\/]v4[\\/]/.test(args.importer)
        ? { path: 'zod-locales', namespace: 'slim', pluginData: dirname(args.importer) }
        : undefined,
    );
    bundle.onLoad({ filter: /^undici$/, namespace: 'slim' }, () => ({
      loader: 'js',
      resolveDir: root,
      contents: `const Dispatcher = require('undici/lib/dispatcher/dispatcher');
        Object.assign(Dispatcher.prototype, require('undici/lib/api'));
        module.exports = { Agent: require('undici/lib/dispatcher/agent'), Pool: require('undici/lib/dispatcher/pool') };`,
    }));
    bundle.onLoad({ filter: /^zod-locales$/, namespace: 'slim' }, (args) => ({
      loader: 'js',
      resolveDir: `${args.pluginData}/../locales`,
      contents: `export { default as en } from './en.js';`,
    }));
  },
};
// Two dependencies do work at load that gbatch never needs, and a fleet's runners start together (issue 35).
// Each patch names the text it replaces; the build fails if that text is no longer there.
// - pg asks whether it runs in a Cloudflare Worker: on Node 20 (no global `navigator`) by making a
//   `Response`, and the first touch of that global loads Node's whole fetch implementation, ~50 ms of CPU
//   at the start of every PostgreSQL runner. gbatch runs on Node only: the bundle takes pg's Node answer.
// - undici's client loads its HTTP/2 half, and with it Node's http2 module (~10 ms), at load. gbatch never
//   allows HTTP/2 (no `allowH2`): the bundle loads that half only if a connection negotiates it, which none does.
const sourcePatches = [
  {
    file: /[\\/]node_modules[\\/]pg[\\/]lib[\\/]stream\.js$/,
    from: 'function isCloudflareRuntime() {',
    to: 'function isCloudflareRuntime() { return false;',
  },
  {
    file: /[\\/]node_modules[\\/]undici[\\/]lib[\\/]dispatcher[\\/]client\.js$/,
    from: "const connectH2 = require('./client-h2.js')",
    to: "const connectH2 = (...args) => require('./client-h2.js')(...args)",
  },
];
const patchSources = {
  name: 'patch-sources',
  setup(bundle) {
    for (const { file, from, to } of sourcePatches) {
      bundle.onLoad({ filter: file }, (args) => {
        const source = readFileSync(args.path, 'utf8');
        if (!source.includes(from)) throw new Error(`${args.path}: no longer holds \`${from}\`; review the patch`);
        return { loader: 'js', contents: source.replace(from, to) };
      });
    }
  },
};
// Chunk names carry content hashes: without this, every rebuild would leave the last one's chunks behind.
rmSync(new URL('../dist/bundle', import.meta.url), { recursive: true, force: true });

await build({
  absWorkingDir: root,
  // index and sim-entry: the library's entries (package.json `exports`), sharing the CLI's chunks.
  entryPoints: {
    main: 'dist/cli/main.js',
    'scan-worker': 'dist/ingest/scan-worker.js',
    index: 'dist/index.js',
    'sim-entry': 'dist/sim-entry.js',
  },
  outdir: 'dist/bundle',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // A native addon: it stays a package, loaded from node_modules.
  external: ['better-sqlite3'],
  // undici is CommonJS and requires Node's built-ins; an ES module has no `require` of its own.
  banner: {
    js: "import { createRequire as __gbatchRequire } from 'node:module'; const require = __gbatchRequire(import.meta.url);",
  },
  sourcemap: true,
  logLevel: 'warning',
  plugins: [slimDependencies, patchSources, embedMigrations],
});
