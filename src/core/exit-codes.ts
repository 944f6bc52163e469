// gbatch's exit codes, one row each: the number scripts rely on (the runner contract), its name in the
// code, what it means at the end of `gbatch run` (and of the library's runJob), and what the operator
// does next. The runner, error-exit, `status --check`, every `--help` and the docs read this table;
// test/system/docs/exit-codes.test.ts holds docs/reference.md and docs/scheduling.md to it.

export interface ExitCodeRow {
  readonly code: number;
  readonly name: ExitName;
  readonly meaning: string;
  /** What to do next; `<job>` stands for the job file (or --state / --journal). */
  readonly action: string;
}

export type ExitName =
  'ok' | 'someFailed' | 'usage' | 'budget' | 'uncertain' | 'skipped' | 'internal' | 'busy' | 'inFlight';

export const EXIT_CODE_TABLE = [
  {
    code: 0,
    name: 'ok',
    meaning:
      "done: every item is finished (`downloaded`, or `cancelled` by `gbatch cancel`: the operator chose it); orphaned items that wait (in none of the run's manifests, or changed there and skipped by `--skip-changed`) do not count",
    action: 'nothing',
  },
  {
    code: 1,
    name: 'someFailed',
    meaning: 'finished, but some items `failed` or were `rejected` (or were `invalid`, with `--skip-invalid`)',
    action:
      'refunded video failures and 408/425 refusals are sent again by the next run on its own (`--retry-failed`); for the rest, `gbatch status <job>` lists them and `gbatch retry <job> --failed --rejected` sends them again on the next run',
  },
  {
    code: 2,
    name: 'usage',
    meaning:
      'usage or configuration error, or an invalid manifest: nothing was sent, and one line on stderr names the file and the cause; or the gateway refused the API key (401), an output path cannot be written (permission, read-only), or the journal file was deleted or replaced during the run (a saved copy is named)',
    action:
      'read the one line on stderr; fix the file, key or path it names; the next run resumes. A row changed under an id the journal holds: give it a new id, or skip such rows and run the rest (`--skip-changed`, or `"skip-changed": true` in a job file; each is listed)',
  },
  {
    code: 3,
    name: 'budget',
    meaning:
      "stopped by `--budget` or by the gateway's balance (402): some items are `deferred` (a stop while an item waits for budget headroom, as at Ctrl-C or the deadline, defers nothing: the item stays `pending`)",
    action:
      'raise the budget (`--budget` or the job file) or top up the account; the next run sends the deferred items',
  },
  {
    code: 4,
    name: 'uncertain',
    meaning: 'some items are `uncertain` (the gateway may have them) and wait for `gbatch resolve`',
    action:
      '`gbatch status <job>`, then `gbatch resolve <job> <id> --task-id …` / `--resubmit` / `--abandon` for each (never resent blindly)',
  },
  {
    code: 5,
    name: 'skipped',
    meaning: "skipped (`--if-running skip`): the job's runner is still alive; nothing was done",
    action:
      'nothing, if it is rare; if every run skips, the one before is too long: look at its log, or give it a `--deadline`',
  },
  {
    code: 70,
    name: 'internal',
    meaning:
      'internal error (a bug): its stack is on stderr (or, when a command stopped with nothing left to wait for before its end, a line saying so); the journal stays consistent',
    action: 'the next run resumes from the journal; report the stack from the log',
  },
  {
    code: 73,
    name: 'busy',
    meaning:
      "the job's runner is still alive (`--if-running fail`, the default on SQLite; or `--if-running wait` past `--if-running-timeout` or `--deadline`): nothing was done. Never 2: a clash is not bad configuration",
    action: 'as for 5; `gbatch status <job>` names the live runner (host, pid, heartbeat)',
  },
  {
    code: 75,
    name: 'inFlight',
    meaning:
      "work is still in flight or the run stopped early: `--no-wait`, a deadline, a signal, an unreachable gateway, a full disk (outputs or journal), the journal database out of reach past 30 s, a lost runner lock, another runner's ingest holding the job's ingest lock past the wait (PostgreSQL)",
    action: 'nothing: the next run continues; if it repeats, the line on stderr says why',
  },
] as const satisfies readonly ExitCodeRow[];

type Row = (typeof EXIT_CODE_TABLE)[number];

/** Each code by its name: `EXIT_CODE.busy` is 73. */
export const EXIT_CODE = Object.fromEntries(EXIT_CODE_TABLE.map((row) => [row.name, row.code])) as {
  readonly [N in Row['name']]: Extract<Row, { name: N }>['code'];
};

/** When several facts hold at the end of a run, the first of these wins. */
export const EXIT_PRECEDENCE = [
  EXIT_CODE.uncertain,
  EXIT_CODE.budget,
  EXIT_CODE.inFlight,
  EXIT_CODE.someFailed,
  EXIT_CODE.ok,
] as const;

export function exitCodeRow(code: number): ExitCodeRow | undefined {
  return EXIT_CODE_TABLE.find((row) => row.code === code);
}

/** "4 > 3 > 75 > 1 > 0". */
export function precedenceText(): string {
  return EXIT_PRECEDENCE.join(' > ');
}
