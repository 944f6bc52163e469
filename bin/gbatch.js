#!/usr/bin/env node
import { main } from '../dist/cli/main.js';

main(process.argv.slice(2)).then(
  (code) => { process.exitCode = code; },
  (err) => { console.error(`gbatch: ${err?.message ?? err}`); process.exitCode = 2; },
);
