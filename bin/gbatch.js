#!/usr/bin/env node
import { main } from '../dist/cli/main.js';

// `gbatch report | head`: a reader that stops early is not an error.
process.stdout.on('error', (err) => {
  if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw err;
});

main(process.argv.slice(2)).then(
  (code) => { process.exitCode = code; },
  (err) => { console.error(`gbatch: ${err?.message ?? err}`); process.exitCode = 2; },
);
