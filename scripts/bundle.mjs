// Bundles the compiled CLI (dist/) into dist/bundle/: one file per command, loaded on demand, with
// zod, undici, csv-parse and p-queue inside. Node then reads and resolves a handful of files instead
// of hundreds: `gbatch run` starts in about half the time (BENCHMARKS.md).
// Paths the code computes from its own location must hold from dist/bundle/ as from dist/<module>/:
// the scan worker is an entry of its own beside the chunks, and both folders are two levels below the
// package root (the simulator's video asset is ../../assets/ from either).
import { build } from 'esbuild';
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
// Chunk names carry content hashes: without this, every rebuild would leave the last one's chunks behind.
rmSync(new URL('../dist/bundle', import.meta.url), { recursive: true, force: true });

await build({
  absWorkingDir: root,
  // index and sim-entry: the library's entries (package.json `exports`), sharing the CLI's chunks.
  entryPoints: { main: 'dist/cli/main.js', 'scan-worker': 'dist/ingest/scan-worker.js', index: 'dist/index.js', 'sim-entry': 'dist/sim-entry.js' },
  outdir: 'dist/bundle',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // A native addon: it stays a package, loaded from node_modules.
  external: ['better-sqlite3'],
  // undici is CommonJS and requires Node's built-ins; an ES module has no `require` of its own.
  banner: { js: "import { createRequire as __gbatchRequire } from 'node:module'; const require = __gbatchRequire(import.meta.url);" },
  sourcemap: true,
  logLevel: 'warning',
});
