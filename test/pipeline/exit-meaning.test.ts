import { describe, expect, it } from 'vitest';
import { ITEM_STATES, type ItemState } from '../../src/core/states.js';
import { EXIT_CODE } from '../../src/core/exit-codes.js';
import { exitMeaning, type RunOutcome } from '../../src/pipeline/exit-meaning.js';
import type { IngestOutcome } from '../../src/ingest/ingest-manifests.js';
import type { OutputFailure } from '../../src/pipeline/stops/output-stop.js';

const NO_COUNTS = Object.fromEntries(ITEM_STATES.map((s) => [s, 0])) as Record<ItemState, number>;

const DISK_FULL: OutputFailure = {
  path: 'out/a.mp4',
  code: 'ENOSPC',
  message: 'out/a.mp4: no space left on device',
  exitCode: EXIT_CODE.inFlight,
};

function outcome(exitCode: number, stopReason: RunOutcome['stopReason'], outputFailure?: OutputFailure): RunOutcome {
  return { exitCode, stopReason, counts: NO_COUNTS, ...(outputFailure ? { outputFailure } : {}) };
}

const OUTPUT_ADVICE =
  'Stopped: out/a.mp4: no space left on device. Every answer received is kept in the journal; make room or fix the ' +
  'path, then run again: nothing already answered is sent again.';

describe('exitMeaning of a run that stopped short', () => {
  it.each<[string, RunOutcome, string]>([
    [
      'usage: a lost journal file comes before a failed output',
      outcome(EXIT_CODE.usage, 'journal-lost', DISK_FULL),
      'Stopped: the journal file was deleted or replaced during the run (see above); nothing more was sent.',
    ],
    ['usage: a failed output comes before the refused key', outcome(EXIT_CODE.usage, 'auth', DISK_FULL), OUTPUT_ADVICE],
    [
      'usage: the refused key',
      outcome(EXIT_CODE.usage, 'auth'),
      'Stopped: the gateway refused the API key (401). Rows stay pending; fix GATEWAY_API_KEY and run again.',
    ],
    ['usage: any other reason', outcome(EXIT_CODE.usage, 'deadline'), 'Refused: nothing was sent.'],
    ['usage: no reason', outcome(EXIT_CODE.usage, null), 'Refused: nothing was sent.'],
    [
      'inFlight: a lost lock comes before a failed output',
      outcome(EXIT_CODE.inFlight, 'lock-lost', DISK_FULL),
      'Stopped: this run lost its journal lock; the runner that holds it now carries on.',
    ],
    [
      'inFlight: a lost journal file is not its own line there',
      outcome(EXIT_CODE.inFlight, 'journal-lost'),
      'Stopped before all work was done; run again to continue.',
    ],
    [
      'usage: a lost lock is not its own line there',
      outcome(EXIT_CODE.usage, 'lock-lost'),
      'Refused: nothing was sent.',
    ],
    [
      'inFlight: a failed output comes before the deadline',
      outcome(EXIT_CODE.inFlight, 'deadline', DISK_FULL),
      OUTPUT_ADVICE,
    ],
    [
      'inFlight: --no-wait',
      outcome(EXIT_CODE.inFlight, 'no-wait'),
      'Submitted; tasks are in flight. Run again later to poll and download.',
    ],
    [
      'inFlight: an unreachable gateway',
      outcome(EXIT_CODE.inFlight, 'unreachable'),
      'Stopped: the gateway is unreachable (see the line above); nothing more was sent. Run again once it is back.',
    ],
    [
      'inFlight: the deadline',
      outcome(EXIT_CODE.inFlight, 'deadline'),
      'Stopped at the deadline; run again to continue.',
    ],
    [
      'inFlight: a signal',
      outcome(EXIT_CODE.inFlight, 'interrupted'),
      'Interrupted: nothing new was sent after the signal; run again to continue.',
    ],
    [
      'inFlight: the refused key is not its own line there',
      outcome(EXIT_CODE.inFlight, 'auth'),
      'Stopped before all work was done; run again to continue.',
    ],
    [
      'inFlight: no reason',
      outcome(EXIT_CODE.inFlight, undefined),
      'Stopped before all work was done; run again to continue.',
    ],
  ])('%s', (_name, result, line) => {
    expect(exitMeaning(result)).toBe(line);
  });

  it('usage: refused manifests name their first problem', () => {
    const ingest = {
      ok: false,
      conflicts: [],
      invalid: [],
      invalidCount: 0,
      problems: ['a.jsonl: not a manifest', 'b.jsonl: not a manifest'],
    } as unknown as IngestOutcome;
    expect(exitMeaning({ ...outcome(EXIT_CODE.usage, undefined), ingest })).toBe(
      'Refused: a.jsonl: not a manifest (and 1 more problem(s) above); nothing was sent.',
    );
    expect(exitMeaning({ ...outcome(EXIT_CODE.usage, 'auth'), ingest })).toMatch(/^Stopped: the gateway refused/);
  });
});
