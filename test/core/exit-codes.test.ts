// The exit-code table (src/core/exit-codes.ts): the contract's numbers, one row per code, the precedence
// the runner follows, and the codes the library's docs give its error classes.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { knownErrorExit } from '../../src/api/error-exit.js';
import { ConfigError } from '../../src/core/config-error.js';
import { EXIT_CODE, EXIT_CODE_TABLE, EXIT_PRECEDENCE, exitCodeRow } from '../../src/core/exit-codes.js';
import { ITEM_STATES, type ItemState } from '../../src/core/states.js';
import { UsageError } from '../../src/job/options.js';
import { usage } from '../../src/cli/main.js';
import { JournalBusyError, LockLostError } from '../../src/journal/errors.js';
import { exitCodeFor } from '../../src/pipeline/exit-code.js';
import { ROOT } from '../helpers/workspace.js';

describe('the exit-code table', () => {
  it('keeps the numbers scripts rely on', () => {
    expect(EXIT_CODE).toEqual({
      ok: 0,
      someFailed: 1,
      usage: 2,
      budget: 3,
      uncertain: 4,
      skipped: 5,
      internal: 70,
      busy: 73,
      inFlight: 75,
    });
  });

  it('has one row per code and per name, each with a meaning and what to do', () => {
    expect(new Set(EXIT_CODE_TABLE.map((r) => r.code)).size).toBe(EXIT_CODE_TABLE.length);
    expect(new Set(EXIT_CODE_TABLE.map((r) => r.name)).size).toBe(EXIT_CODE_TABLE.length);
    for (const row of EXIT_CODE_TABLE) {
      expect(row.meaning.length).toBeGreaterThan(10);
      expect(row.action.length).toBeGreaterThan(3);
      expect(exitCodeRow(row.code)).toBe(row);
    }
    expect(exitCodeRow(99)).toBeUndefined();
  });

  it('the runner decides by EXIT_PRECEDENCE: each code wins over every one after it', () => {
    const fact: Record<number, Partial<Record<ItemState, number>>> = {
      [EXIT_CODE.uncertain]: { uncertain: 1 },
      [EXIT_CODE.budget]: { deferred: 1 },
      [EXIT_CODE.inFlight]: { pending: 1 },
      [EXIT_CODE.someFailed]: { failed: 1 },
      [EXIT_CODE.ok]: { downloaded: 1 },
    };
    EXIT_PRECEDENCE.forEach((code, i) => {
      const counts = Object.fromEntries(ITEM_STATES.map((s) => [s, 0])) as Record<ItemState, number>;
      for (const later of EXIT_PRECEDENCE.slice(i)) Object.assign(counts, fact[later]);
      expect(exitCodeFor({ counts, stoppedEarly: false })).toBe(code);
    });
  });

  it("the library's error classes end the CLI with the code src/index.ts says", () => {
    const errors: Record<string, Error> = {
      UsageError: new UsageError('bad flag'),
      ConfigError: new ConfigError('bad file'),
      JournalBusyError: new JournalBusyError('state/j.db', 1, 'host'),
      LockLostError: new LockLostError('state/j.db'),
    };
    const index = readFileSync(join(ROOT, 'src/index.ts'), 'utf8');
    for (const [name, error] of Object.entries(errors)) {
      // The doc comment that names the class: "Name: ... (the CLI's `EXIT_CODE.x`, N)", or the one above its export.
      const own = new RegExp(`${name}: [^\\n]*`).exec(index)?.[0];
      const above = new RegExp(`/\\*\\*([^*]|\\*(?!/))*\\*/\\nexport \\{[^}]*\\b${name}\\b`).exec(index)?.[0];
      const doc = own ?? above;
      expect(doc, name).toBeDefined();
      const documented = Number(/(\d+)\)/.exec(doc!)?.[1]);
      expect(knownErrorExit(error)?.exitCode, name).toBe(documented);
      const named = /`EXIT_CODE\.(\w+)`/.exec(doc!)?.[1] as keyof typeof EXIT_CODE;
      expect(EXIT_CODE[named], name).toBe(documented);
    }
  });

  it('`gbatch --help` lists every code by its name', () => {
    expect(usage()).toContain(`Exit codes: ${EXIT_CODE_TABLE.map((r) => `${r.code} ${r.name}`).join(', ')}.`);
  });
});
