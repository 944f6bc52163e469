// What every handler may use: the simulator's state, its clock, its one PRNG and its live faults.

import type { Account, AccountRegistry } from './accounts.js';
import type { Ledger } from './ledger.js';
import type { ResolvedOptions } from './options.js';
import type { PriceList } from './prices.js';
import type { Random } from './random.js';
import type { Reply } from './reply.js';
import type { TaskBook } from './task-book.js';
import type { Clock, Endpoint, FaultOptions } from './types.js';

export interface SimContext {
  readonly options: ResolvedOptions;
  readonly accounts: AccountRegistry;
  readonly ledger: Ledger;
  readonly prices: PriceList;
  readonly tasks: TaskBook;
  readonly random: Random;
  readonly clock: Clock;
  faults(): FaultOptions;
  /** Applies a checked change of faults (the admin endpoint); a RangeError says which value is refused. */
  updateFaults(update: Partial<FaultOptions>): void;
  /** A line for the operator (`gbatch sim` prints it on stderr). */
  log(line: string): void;
  /** 'http://127.0.0.1:<port>', known once the server listens. */
  origin: string;
  readonly video: Buffer;
  /** Sequence for chat and response ids. */
  nextId(prefix: string): string;
  /** Aborted by close(): requests waiting out injected latency give up at once. */
  readonly closing: AbortSignal;
}

/** One authenticated request, its JSON body parsed. */
export interface Call {
  account: Account;
  body: unknown;
  /** The {task_id} path parameter of endpoints 5 and 6. */
  taskId: string | undefined;
}

export type Handler = (ctx: SimContext, call: Call) => Reply;

export type HandlerTable = Record<Endpoint, Handler>;
