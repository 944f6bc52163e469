#!/usr/bin/env node
import { main, printableBlock } from '../dist/bundle/main.js';

// `gbatch report | head`: a reader that stops early is not an error.
process.stdout.on('error', (err) => {
  if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw err;
});

main(process.argv.slice(2)).then(
  exitOnceWritten,
  (err) => {
    // Usage and configuration errors are answered inside (exit 2); reaching here is a bug.
    console.error(`gbatch: internal error: ${printableBlock(String(err?.stack ?? err))}`);
    console.error('gbatch: the journal stays consistent; a new run resumes from it. Please report this.');
    process.exitCode = 70;
  },
);

/**
 * The command is done: exit as soon as stdout and stderr have taken what it wrote, not once the event
 * loop has drained and the heap is torn down (up to several hundred ms on a busy host, at the end of
 * every run; runners of one job end together, issue 11).
 */
function exitOnceWritten(code) {
  process.exitCode = code;
  process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
}
