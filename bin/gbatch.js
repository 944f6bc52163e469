#!/usr/bin/env node
import { main, printableBlock } from '../dist/bundle/main.js';

// `gbatch report | head`: a reader that stops early is not an error.
process.stdout.on('error', (err) => {
  if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw err;
});

main(process.argv.slice(2)).then(
  (code) => { process.exitCode = code; },
  (err) => {
    // Usage and configuration errors are answered inside (exit 2); reaching here is a bug.
    console.error(`gbatch: internal error: ${printableBlock(String(err?.stack ?? err))}`);
    console.error('gbatch: the journal stays consistent; a new run resumes from it. Please report this.');
    process.exitCode = 70;
  },
);
