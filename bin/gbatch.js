#!/usr/bin/env node
import { setFlagsFromString } from 'node:v8';
import { main, printableBlock } from '../dist/bundle/main.js';

// undici parses HTTP with a WebAssembly build of llhttp, which V8 compiles once with its baseline compiler
// and then again, on a background thread, with its optimizing one; a short command waits for that second
// compile at exit (about 0.25 s of CPU per process, a third of a 3-row run). The baseline code parses
// gbatch's answers as fast (BENCHMARKS.md, `short-run`). Set before any HTTP client compiles the parser.
setFlagsFromString('--liftoff-only');

// `gbatch report | head`: a reader that stops early is not an error.
process.stdout.on('error', (err) => {
  if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw err;
});

// The event loop ran dry while the command's promise is still pending: some step waits on something that
// can never happen (a bug). Said as one, never a silent exit 0 with nothing done.
let settled = false;
process.on('beforeExit', () => {
  if (settled) return;
  console.error(
    'gbatch: internal error: the command stopped before its end, with nothing left to wait for (a step waited on an event that never came)',
  );
  console.error('gbatch: the journal stays consistent; a new run resumes from it. Please report this.');
  process.exit(70);
});

main(process.argv.slice(2))
  .finally(() => {
    settled = true;
  })
  .then(exitOnceWritten, (err) => {
    // Usage and configuration errors are answered inside (exit 2); reaching here is a bug.
    console.error(`gbatch: internal error: ${printableBlock(String(err?.stack ?? err))}`);
    console.error('gbatch: the journal stays consistent; a new run resumes from it. Please report this.');
    process.exitCode = 70;
  });

/**
 * The command is done: exit as soon as stdout and stderr have taken what it wrote, not once the event
 * loop has drained and the heap is torn down (up to several hundred ms on a busy host, at the end of
 * every run; runners of one job end together, issue 11).
 */
function exitOnceWritten(code) {
  process.exitCode = code;
  process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
}
