// Item states of the runner contract and the one place that decides which transitions are legal.

export type ItemKind = 'chat' | 'responses' | 'video';

export const ITEM_KINDS: readonly ItemKind[] = ['chat', 'responses', 'video'];

export type ItemState =
  | 'pending' // ingested, not yet sent
  | 'submitting' // intent durable; the request may be on the wire
  | 'submitted' // video task accepted, task id known
  | 'running' // video task seen in progress
  | 'succeeded' // upstream done; output not yet on disk
  | 'downloaded' // done: video on disk, or chat/responses body written to results.jsonl
  | 'failed' // the task failed upstream (refunded), its video could not be downloaded, or the operator abandoned it
  | 'rejected' // the gateway refused the request (4xx)
  | 'invalid' // never sent: the manifest row is invalid
  | 'uncertain' // the submission's outcome is unknown: waits for `gbatch resolve`
  | 'deferred' // held back by --budget or the gateway's 402
  | 'cancelled'; // never sent: the operator cancelled the job (`gbatch cancel`)

/** The states a row passes through on its way to done, in that order. */
export const FORWARD_STATES: readonly ItemState[] = [
  'pending',
  'submitting',
  'submitted',
  'running',
  'succeeded',
  'downloaded',
];

export const ITEM_STATES: readonly ItemState[] = [
  ...FORWARD_STATES,
  'failed',
  'rejected',
  'invalid',
  'uncertain',
  'deferred',
  'cancelled',
];

/**
 * States no run moves out of by itself (only the operator's `requeue`, `unreserve` or `detach` does). `uncertain` and
 * `deferred`
 * wait for an operator or a later run.
 */
export const TERMINAL: ReadonlySet<ItemState> = new Set(['downloaded', 'failed', 'rejected', 'invalid', 'cancelled']);

/** States in which a video task exists upstream and must be polled. */
export const IN_FLIGHT: ReadonlySet<ItemState> = new Set(['submitted', 'running']);

export type ItemEvent =
  | 'submit' // pending -> submitting: intent recorded before the request leaves
  | 'accept' // submitting -> submitted: video task id received
  | 'complete' // submitting -> succeeded: chat/responses body received
  | 'retry' // submitting -> pending: a definite answer that kept nothing (429, gateway 5xx)
  | 'reject' // submitting -> rejected: a definite 4xx refusal
  | 'defer' // pending|submitting -> deferred: budget, or 402 (the gateway kept nothing)
  | 'lose' // submitting -> uncertain: no answer, or an answer that may hide a kept request
  | 'oversize' // submitting -> failed: answered (and billed), but larger than --max-response-bytes
  | 'progress' // submitted|running -> running
  | 'finish' // submitted|running -> succeeded: task SUCCESS
  | 'fail' // submitted|running -> failed: task FAILURE
  | 'vanish' // submitted|running -> uncertain: the gateway answers 404 for the task on every id it gave
  | 'store' // succeeded -> downloaded: output written
  | 'forfeit' // succeeded -> failed: the video could not be downloaded within its bound of tries (it stays billed)
  | 'attach' // uncertain -> submitted: operator supplied the task id
  | 'adopt' // uncertain -> succeeded: operator settled a text row from the answer a runner received after losing its lease
  | 'resubmit' // uncertain -> pending: operator (or opt-in auto policy) chose to send again
  | 'abandon' // uncertain|deferred|pending -> failed: operator gave up on it (an uncertain row's bound stays booked)
  | 'unreserve' // failed -> failed: the operator found an abandoned uncertain request was not billed; its bound is released
  | 'detach' // submitted|running|succeeded|downloaded|failed -> uncertain: the operator undoes a wrong `attach`
  | 'release' // deferred -> pending: a later run may send it
  | 'requeue' // failed|rejected|cancelled -> pending: the operator chose to send it again (`gbatch retry`)
  | 'cancel'; // pending|deferred -> cancelled: the job was cancelled (`gbatch cancel`); never sent

const TABLE: Record<ItemEvent, Partial<Record<ItemState, ItemState>>> = {
  submit: { pending: 'submitting' },
  accept: { submitting: 'submitted' },
  complete: { submitting: 'succeeded' },
  retry: { submitting: 'pending' },
  reject: { submitting: 'rejected' },
  defer: { pending: 'deferred', submitting: 'deferred' },
  lose: { submitting: 'uncertain' },
  oversize: { submitting: 'failed' },
  progress: { submitted: 'running', running: 'running' },
  finish: { submitted: 'succeeded', running: 'succeeded' },
  fail: { submitted: 'failed', running: 'failed' },
  vanish: { submitted: 'uncertain', running: 'uncertain' },
  store: { succeeded: 'downloaded' },
  forfeit: { succeeded: 'failed' },
  attach: { uncertain: 'submitted' },
  adopt: { uncertain: 'succeeded' },
  resubmit: { uncertain: 'pending' },
  abandon: { uncertain: 'failed', deferred: 'failed', pending: 'failed' },
  unreserve: { failed: 'failed' },
  detach: {
    submitted: 'uncertain',
    running: 'uncertain',
    succeeded: 'uncertain',
    downloaded: 'uncertain',
    failed: 'uncertain',
  },
  release: { deferred: 'pending' },
  requeue: { failed: 'pending', rejected: 'pending', cancelled: 'pending' },
  cancel: { pending: 'cancelled', deferred: 'cancelled' },
};

/** Every event, taken from the table itself so the list cannot drift from it. */
export const ITEM_EVENTS: readonly ItemEvent[] = Object.keys(TABLE) as ItemEvent[];

export class IllegalTransitionError extends Error {
  readonly code = 'GBATCH_ILLEGAL_TRANSITION';
  constructor(
    readonly from: ItemState,
    readonly event: ItemEvent,
  ) {
    super(`illegal transition: '${event}' from state '${from}'`);
    this.name = 'IllegalTransitionError';
  }
}

/** The next state for `event` in state `from`; an illegal pair is a bug in the caller and throws. */
export function transition(from: ItemState, event: ItemEvent): ItemState {
  const next = TABLE[event][from];
  if (next === undefined) throw new IllegalTransitionError(from, event);
  return next;
}

export function canTransition(from: ItemState, event: ItemEvent): boolean {
  return TABLE[event][from] !== undefined;
}

/** The from-states an event is legal in: the journal's compare-and-set uses this as its guard. */
export function fromStates(event: ItemEvent): ItemState[] {
  return Object.keys(TABLE[event]) as ItemState[];
}

export function isTerminal(state: ItemState): boolean {
  return TERMINAL.has(state);
}
