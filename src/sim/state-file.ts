// The simulator's --state FILE: its tasks, ledger, balances and where its random sequence stands, so a
// restart carries on where the last process stopped. Written after every change (bursts coalesced) to a
// temporary file that replaces the old one only once complete: a kill mid-write leaves the last good state.
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { open, rename } from 'node:fs/promises';
import { z } from 'zod';
import type { SavedLedger } from './ledger.js';
import type { SavedTask } from './task-book.js';

export interface SimState {
  version: 1;
  /** The seeded PRNG's state (Random.state()): task ids and fault rolls go on, never repeat. */
  random: number;
  /** The counter of chat and response ids. */
  sequence: number;
  /** Balances by account name (acct-1, ...); keys are never written. */
  balances: Record<string, number>;
  tasks: SavedTask[];
  ledger: SavedLedger;
}

const finite = z.number().finite();
const stateSchema = z.object({
  version: z.literal(1),
  random: z.number().int().nonnegative(),
  sequence: z.number().int().nonnegative(),
  balances: z.record(z.string(), finite),
  tasks: z.array(
    z
      .object({
        id: z.string(),
        account: z.string(),
        model: z.string(),
        prompt: z.string(),
        requestedResolution: z.string(),
        finalResolution: z.string(),
        seconds: finite,
        hasReferenceVideo: z.boolean(),
        referenceVideos: finite,
        reservedUsd: finite,
        rateSnapshot: z.record(z.string(), finite),
        groupRatioSnapshot: finite,
        state: z.enum(['NOT_START', 'QUEUED', 'IN_PROGRESS', 'SUCCESS', 'FAILURE']),
        totalTokens: finite.nullable(),
        chargedUsd: finite,
        submittedAt: finite,
        endsAt: finite,
        willFail: z.boolean(),
        noise: finite,
        settled: z.boolean(),
      })
      .loose(),
  ),
  ledger: z.object({
    requests: z.array(z.object({ at: finite, method: z.string(), path: z.string() }).loose()),
    charges: z.array(
      z
        .object({ at: finite, account: z.string(), kind: z.enum(['reserve', 'settle', 'refund', 'chat']), usd: finite })
        .loose(),
    ),
    submissionsByPrompt: z.record(z.string(), z.number().int().nonnegative()),
  }),
});

/** The state the file holds; undefined when there is no file yet. A file that is not one: a RangeError naming it. */
export function readSimState(file: string): SimState | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new RangeError(`${file}: cannot read the simulator's state: ${(err as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new RangeError(`${file}: not a simulator state file (not JSON: ${(err as Error).message})`);
  }
  const parsed = stateSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new RangeError(
      `${file}: not a simulator state file (field ${issue.path.join('.') || '(root)'}: ${issue.message})`,
    );
  }
  return parsed.data as unknown as SimState;
}

/** The first write, at start: a file that cannot be written is said then (a RangeError naming it), not later. */
export function writeSimStateNow(file: string, state: SimState): void {
  const temporary = temporaryOf(file);
  try {
    const fd = openSync(temporary, 'w', 0o600);
    try {
      writeSync(fd, `${JSON.stringify(state)}\n`);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temporary, file);
  } catch (err) {
    throw new RangeError(`${file}: cannot write the simulator's state: ${(err as Error).message}`);
  }
}

const temporaryOf = (file: string): string => `${file}.${process.pid}.tmp`;

/** Writes the state after each change, coalescing a burst into one write; flush() waits for the last. */
export class StateWriter {
  private writing: Promise<void> | undefined;
  private pending = false;
  private failure: Error | undefined;

  constructor(
    private readonly file: string,
    private readonly snapshot: () => SimState,
    private readonly onError: (err: Error) => void,
  ) {}

  /** A change happened: a write starts once the current one (if any) is done. */
  changed(): void {
    this.pending = true;
    this.writing ??= this.drain();
  }

  /** Resolves once every change so far is on disk. */
  async flush(): Promise<void> {
    if (this.pending) this.writing ??= this.drain();
    await this.writing;
  }

  private async drain(): Promise<void> {
    // Let the rest of this burst of changes land first: one write for all of them.
    await new Promise<void>((resolve) => setImmediate(resolve));
    while (this.pending) {
      this.pending = false;
      try {
        await writeAtomically(this.file, `${JSON.stringify(this.snapshot())}\n`);
        this.failure = undefined;
      } catch (err) {
        // Said once per run of failures, not on every request.
        if (this.failure === undefined) this.onError(err as Error);
        this.failure = err as Error;
      }
    }
    this.writing = undefined;
  }
}

async function writeAtomically(file: string, text: string): Promise<void> {
  const temporary = temporaryOf(file);
  const handle = await open(temporary, 'w', 0o600);
  try {
    await handle.writeFile(text, 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(temporary, file);
}
