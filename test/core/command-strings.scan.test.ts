// One builder of the commands gbatch suggests (src/core/job-address.ts): no other source file spells a
// `gbatch <verb> ...` command with arguments of its own. What may appear elsewhere: a usage text whose arguments
// are placeholders (`<job>`, `<id>`), a pointer to `--help`, and prose about a running `gbatch run (pid ...)`.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { expect, test } from 'vitest';
import { ROOT } from '../helpers/workspace.js';

const BUILDER = 'src/core/job-address.ts';
/** The verbs that act on a job, whose commands name it (gbatch jobs, models, sim, serve, ui name none). */
const VERBS = 'status|report|resolve|retry|cancel|forget|run|plan';
/** What may follow `gbatch <verb> ` outside the builder: a placeholder, --help, or prose about a runner. */
const ALLOWED = /^(<[\w-]+>|--help\b|\(pid |pid )/;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** The file's code without its comments (whole comment lines and blocks: the words there suggest nothing). */
function code(text: string): string[] {
  return text
    .replace(/\/\*[\s\S]*?\*\//g, (block) => block.replace(/[^\n]/g, ''))
    .split('\n')
    .map((line) => (/^\s*\/\//.test(line) ? '' : line));
}

/** Every `gbatch <verb> <argument>` spelled outside the builder and not allowed, as `file:line: text`. */
function commandsOutsideBuilder(): string[] {
  const found: string[] = [];
  for (const path of sources(join(ROOT, 'src'))) {
    const file = relative(ROOT, path);
    if (file === BUILDER) continue;
    code(readFileSync(path, 'utf8')).forEach((line, i) => {
      for (const match of line.matchAll(new RegExp(`gbatch (?:${VERBS}) (\\S[^\`'"]*)`, 'g'))) {
        if (ALLOWED.test(match[1]!)) continue;
        found.push(`${file}:${i + 1}: ${match[0]}`);
      }
    });
  }
  return found;
}

test('no command string is built outside src/core/job-address.ts', () => {
  expect(commandsOutsideBuilder()).toEqual([]);
});

test('the scan sees what it looks for', () => {
  // The builder itself spells commands: the scan would find them there, so an empty answer is no blind spot.
  const builder = code(readFileSync(join(ROOT, BUILDER), 'utf8')).join('\n');
  expect(builder).toMatch(/'gbatch', 'run'/);
  expect('`gbatch retry --cancelled` lifts it').toMatch(new RegExp(`gbatch (?:${VERBS}) (\\S[^\`'"]*)`));
  expect(ALLOWED.test('--cancelled` lifts it')).toBe(false);
  expect(ALLOWED.test('<job> --failed')).toBe(true);
});
