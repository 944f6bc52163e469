// Keeps the forecast a job starts with (core/start-forecast.ts) in its record, once: at the first run
// that has rows to send, of the rows pending after ingest and before the first send. Later runs find it and
// every save of the record keeps it (the journal's rule), so the report sets the forecast of the whole job
// against the whole job's bill.
// Reading every pending row and drawing the trials takes a while on a large job (0.3-0.5 s of CPU at
// 10,000 rows): the rows and the history are pinned in a journal snapshot before the first send, and read
// and drawn beside the sends, so the forecast is the one it would be with the sends waiting for it.
import { rowLikeness } from '../core/row-likeness.js';
import type { ForecastRow } from '../core/forecast.js';
import { accountHistory, startForecast, startForecastOf, type StartForecast } from '../core/start-forecast.js';
import type { JournalHistory, JournalRun, JournalSnapshot } from '../journal/index.js';

// Small pages: an SQLite page is read in one synchronous step, and the run's answers wait for it to end. An
// event loop held for seconds leaves the connections idle past the gateway's keep-alive, and a request sent
// on one as the server closes it is lost on the wire (uncertain).
const SNAPSHOT_PAGE = 200;

/** A forecast under way: `done` settles once it is kept (or found not needed); it never rejects. */
export interface StartForecastTask {
  done: Promise<{ forecast?: StartForecast; error?: Error }>;
}

/** Told the forecast the job's record keeps, and whether this run made it (false: an earlier run did). */
export type OnKeptForecast = (forecast: StartForecast, made: boolean) => void;

/**
 * Pins what the forecast reads (the job's pending rows, the history) and returns at once; the forecast is
 * drawn and kept in the job's record in the background, unless the record already keeps one or nothing is
 * left to send. `onKept` hears of the forecast the record keeps: this run's, or one another runner of the job
 * kept while this one drew its own (that one stands; this one is dropped).
 */
export async function beginStartForecast(
  journal: Pick<JournalRun, 'getJob'> & Pick<JournalHistory, 'snapshot' | 'keepStartForecast'>,
  account: string,
  now: number,
  onKept: OnKeptForecast,
): Promise<StartForecastTask> {
  const kept = startForecastOf((await journal.getJob())?.options);
  if (kept) {
    onKept(kept, false);
    return { done: Promise.resolve({}) };
  }
  const snapshot = await journal.snapshot();
  const done = forecastFrom(snapshot, account, now)
    .finally(() => snapshot.close())
    .then(async (forecast) => {
      const record = forecast && (await journal.keepStartForecast(forecast));
      if (!record) return {};
      onKept(record.forecast, record.made);
      return record.made ? { forecast: record.forecast } : {};
    })
    .catch((err: unknown) => ({ error: err as Error }));
  return { done };
}

/** The forecast of the snapshot's rows still to send; undefined when there are none. */
async function forecastFrom(
  snapshot: JournalSnapshot,
  account: string,
  now: number,
): Promise<StartForecast | undefined> {
  const rows: ForecastRow[] = [];
  for await (const item of snapshot.iterate({ states: ['pending'], notOrphaned: true }, SNAPSHOT_PAGE))
    rows.push({
      ...rowLikeness(item.kind, item.request),
      id: item.id,
      estimateUsd: item.estimateUsd,
      reserveUsd: item.estimateUsd,
    });
  if (rows.length === 0) return undefined;
  return startForecast(rows, accountHistory(await snapshot.settledCosts(), account), now);
}

/** Waits for a forecast under way: one that could not be kept is one line, never the run's outcome. */
export async function settleStartForecast(
  task: StartForecastTask | undefined,
  say: (line: string) => void,
): Promise<void> {
  const error = task && (await task.done).error;
  if (error) say(`the job's start forecast was not kept: ${error.message}`);
}
