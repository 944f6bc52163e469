// What each command's exit codes mean, as its `--help` ends. The numbers, and what `run`'s codes mean,
// are src/core/exit-codes.ts's table; the other commands say here what a code means for them.
import { EXIT_CODE, EXIT_CODE_TABLE, exitCodeRow, precedenceText } from './exit-codes.js';

export type ExitCodeList = ReadonlyArray<readonly [code: number, meaning: string]>;

const INTERNAL = [EXIT_CODE.internal, exitCodeRow(EXIT_CODE.internal)!.meaning] as const;
const USAGE = [
  EXIT_CODE.usage,
  'usage or configuration error: one line on stderr naming the file and the cause',
] as const;
/** A live runner holds the job (SQLite's lock): never exit 2, which means bad configuration. */
const BUSY = [
  EXIT_CODE.busy,
  'a live runner holds the job (another `gbatch run`): nothing was done; wait for it to end, or see the `--if-running` option of `gbatch run`',
] as const;
/** A server's codes (`serve`, `ui`): it runs until stopped, or could not start. */
function serverCodes(stopped: string): ExitCodeList {
  return [
    [EXIT_CODE.ok, stopped],
    [EXIT_CODE.someFailed, 'could not start (the port is in use, the journal cannot be opened)'],
    USAGE,
    INTERNAL,
  ];
}
/** `run`'s codes in the table's order, then the precedence rule. */
const RUN: ExitCodeList = [
  ...EXIT_CODE_TABLE.map((row) => [row.code, row.meaning] as const),
  [-1, `when several apply: ${precedenceText()}`],
];

export const EXIT_CODES = {
  plan: [
    [
      EXIT_CODE.ok,
      'every row is valid and, under a budget, the job will most likely finish (verdict fits_at_bound or likely_finishes)',
    ],
    [
      EXIT_CODE.usage,
      'some row is invalid (each listed as file:line), a row changed under an id the journal holds, a row the journal holds that the pricing file cannot price, or a usage or configuration error',
    ],
    [
      EXIT_CODE.budget,
      'the job will most likely stop short of its budget (verdict likely_stops_short): a row can never be sent, or the forecast gives the run less than an even chance to send every row',
    ],
    INTERNAL,
  ],
  run: RUN,
  status: [
    [EXIT_CODE.ok, 'the status was printed (with --check: nothing needs an operator)'],
    [
      EXIT_CODE.someFailed,
      'with --check: something needs an operator, one line each on stdout (uncertain items, a dead runner holding the lock, a stop by the budget or the balance, a cancelled job with tasks no runner is settling)',
    ],
    USAGE,
    INTERNAL,
  ],
  report: [[EXIT_CODE.ok, 'the report was written'], USAGE, INTERNAL],
  resolve: [
    [EXIT_CODE.ok, 'the decision is recorded in the journal'],
    [
      EXIT_CODE.usage,
      'usage error, an item not in a state for that decision, a --task-id the gateway does not know, or one the journal holds for another item or attempt (without --force): nothing changed',
    ],
    [
      EXIT_CODE.busy,
      'with --detach-task: a live runner holds the SQLite journal: nothing changed; run it again once the run ends',
    ],
    INTERNAL,
  ],
  retry: [
    [EXIT_CODE.ok, 'the items are pending again (or nothing matched): the next `gbatch run` sends them'],
    [
      EXIT_CODE.usage,
      'usage error, or an id that cannot be retried (uncertain, invalid, in progress, abandoned while uncertain): nothing changed',
    ],
    BUSY,
    INTERNAL,
  ],
  forget: [
    [EXIT_CODE.ok, 'the items are removed from the journal'],
    [
      EXIT_CODE.usage,
      'usage error, or an id that may not be removed (not in the journal, still in a manifest of the job, or sent before): nothing was removed',
    ],
    BUSY,
    INTERNAL,
  ],
  cancel: [
    [
      EXIT_CODE.ok,
      'the job is cancelled: pending and deferred items are cancelled, and every live runner acknowledged (it sends nothing more)',
    ],
    USAGE,
    [
      EXIT_CODE.inFlight,
      'the job is cancelled, but a live runner did not acknowledge within --wait (the journal refuses its new submissions; a request it had already recorded may still leave); or the journal stayed busy: run it again',
    ],
    INTERNAL,
  ],
  history: [[EXIT_CODE.ok, 'the history was shown, or merged'], USAGE, INTERNAL],
  journal: [
    [EXIT_CODE.ok, "the schema is at this gbatch's version"],
    [
      EXIT_CODE.usage,
      'usage or configuration error (no journal named, a server that cannot be reached), or a schema written by a newer gbatch',
    ],
    INTERNAL,
  ],
  models: [
    [
      EXIT_CODE.ok,
      "the models were listed: the pricing table's and the gateway's, or the pricing table's when no gateway is configured",
    ],
    [
      EXIT_CODE.someFailed,
      "a gateway is configured but its model list could not be read (unreachable, no API key, refused): the pricing table's models were listed, and why on the gateway line",
    ],
    USAGE,
    INTERNAL,
  ],
  jobs: [
    [EXIT_CODE.ok, 'every job of the journal was listed (none is not an error)'],
    [EXIT_CODE.someFailed, 'some journal could not be read: its row says why; the others were listed'],
    USAGE,
    INTERNAL,
  ],
  sim: [
    [EXIT_CODE.ok, 'stopped by SIGINT or SIGTERM'],
    [EXIT_CODE.someFailed, 'could not start (the port is in use)'],
    [
      EXIT_CODE.usage,
      'usage error, or a --state file that is not a simulator state, names an account no --api-key gives, or cannot be written',
    ],
  ],
  serve: serverCodes('stopped by SIGINT or SIGTERM (batches in progress carry on at the next start)'),
  ui: serverCodes('stopped by SIGINT or SIGTERM'),
  demo: [[-1, 'those of `gbatch run` (see `gbatch run --help`)']],
} as const satisfies Record<string, ExitCodeList>;

export type CommandName = keyof typeof EXIT_CODES;

export function exitCodesText(list: ExitCodeList): string {
  return [
    'Exit codes:',
    ...list.map(([code, meaning]) => `  ${code < 0 ? '' : String(code)}`.padEnd(6) + meaning),
  ].join('\n');
}
