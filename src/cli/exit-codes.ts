// What each command's exit codes mean, as its `--help` ends. One list per command, kept beside the
// option tables so a new code is documented where the commands are.

export type ExitCodeList = ReadonlyArray<readonly [code: number, meaning: string]>;

const INTERNAL = [70, 'internal error (a bug): its stack is on stderr; the journal stays consistent'] as const;
const USAGE = [2, 'usage or configuration error: one line on stderr naming the file and the cause'] as const;
/** A live runner holds the job (SQLite's lock): never exit 2, which means bad configuration. */
const BUSY = [73, 'a live runner holds the job (another `gbatch run`): nothing was done; wait for it to end, or see `gbatch run --if-running`'] as const;

export const EXIT_CODES = {
  plan: [
    [0, 'every row is valid and the job fits the budget (when one is in force)'],
    [2, 'some row is invalid (each listed as file:line), a row changed under an id the journal holds, a row the journal holds that the pricing file cannot price, or a usage or configuration error'],
    [3, 'the job does not fit the budget: what the gateway can bill for the remaining rows, plus what the journal holds, exceeds it'],
    INTERNAL,
  ],
  run: [
    [0, 'done: every item is finished (items cancelled by `gbatch cancel` count as finished: the operator chose it)'],
    [1, 'finished, but some items failed or were rejected (or were invalid, with --skip-invalid)'],
    [2, 'usage or configuration error, or an invalid manifest: nothing was sent; or the gateway refused the API key (401), an output path cannot be written (permission, read-only), or the journal file was deleted or replaced during the run (a saved copy is named)'],
    [3, 'stopped by --budget or by the gateway\'s balance (402): some items are deferred (a stop while an item waits for budget headroom, as at Ctrl-C or the deadline, defers nothing: 75)'],
    [4, 'some items are uncertain (the gateway may have them): decide with `gbatch resolve`'],
    [5, 'skipped (--if-running skip): the job\'s runner is still alive; nothing was done'],
    [73, 'the job\'s runner is still alive (--if-running fail, the default on SQLite; or --if-running wait reached --if-running-timeout or --deadline): nothing was done'],
    [75, 'work is still in flight or was stopped early (--no-wait, --deadline, a signal, an unreachable gateway, a full disk, the journal database out of reach, a lost runner lock): run again later'],
    INTERNAL,
    [-1, 'when several apply: 4 > 3 > 75 > 1 > 0'],
  ],
  status: [
    [0, 'the status was printed (with --check: nothing needs an operator)'],
    [1, 'with --check: something needs an operator, one line each on stdout (uncertain items, a dead runner holding the lock, a stop by the budget or the balance, a cancelled job with tasks no runner is settling)'],
    USAGE, INTERNAL,
  ],
  report: [[0, 'the report was written'], USAGE, INTERNAL],
  resolve: [
    [0, 'the decision is recorded in the journal'],
    [2, 'usage error, an item not in a state for that decision, a --task-id the gateway does not know, or one the journal holds for another item or attempt (without --force): nothing changed'],
    [73, 'with --detach-task: a live runner holds the SQLite journal: nothing changed; run it again once the run ends'],
    INTERNAL,
  ],
  retry: [
    [0, 'the items are pending again (or nothing matched): the next `gbatch run` sends them'],
    [2, 'usage error, or an id that cannot be retried (uncertain, invalid, in progress, abandoned while uncertain): nothing changed'],
    BUSY,
    INTERNAL,
  ],
  forget: [
    [0, 'the items are removed from the journal'],
    [2, 'usage error, or an id that may not be removed (not in the journal, still in a manifest of the job, or sent before): nothing was removed'],
    BUSY,
    INTERNAL,
  ],
  cancel: [
    [0, 'the job is cancelled: pending and deferred items are cancelled, and every live runner acknowledged (it sends nothing more)'],
    USAGE,
    [75, 'the job is cancelled, but a live runner did not acknowledge within --wait (the journal refuses its new submissions; a request it had already recorded may still leave); or the journal stayed busy: run it again'],
    INTERNAL,
  ],
  journal: [
    [0, 'the schema is at this gbatch\'s version'],
    [2, 'usage or configuration error (no journal named, a server that cannot be reached), or a schema written by a newer gbatch'],
    INTERNAL,
  ],
  sim: [[0, 'stopped by SIGINT or SIGTERM'], [1, 'could not start (the port is in use)'], [2, 'usage error']],
  demo: [[-1, 'those of `gbatch run` (see `gbatch run --help`)']],
} as const satisfies Record<string, ExitCodeList>;

export type CommandName = keyof typeof EXIT_CODES;

export function exitCodesText(list: ExitCodeList): string {
  return ['Exit codes:', ...list.map(([code, meaning]) => `  ${code < 0 ? '' : String(code)}`.padEnd(6) + meaning)].join('\n');
}
