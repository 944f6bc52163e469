// The scene of a runner frozen past its lease with requests on the wire: it is stopped (SIGSTOP) once
// `inFlight` submissions reached the gateway, another runner takes the job over and ends with the rows it
// found mid-request uncertain (exit 4), then the frozen one is resumed (SIGCONT) and ends fenced (exit 75).
import { expect } from 'vitest';
import type { startSimulator } from '../../src/sim/index.js';
import { describeEnd, type Ended, type GbatchChild } from './crash/gbatch-child.js';
import { watchSimulator } from './crash/sim-watch.js';

type Simulator = Awaited<ReturnType<typeof startSimulator>>;

/** Runs the scene with `run` (each call starts one runner of the job); the resumed runner's end. */
export async function freezePastLease(sim: Simulator, inFlight: number, run: () => GbatchChild): Promise<Ended> {
  const watch = watchSimulator(sim);
  const frozen = run();
  await new Promise<void>((resolve) => {
    let posts = 0;
    watch.events.on('request', (entry) => {
      if (entry.method === 'POST' && ++posts === inFlight) resolve();
    });
  });
  frozen.process.kill('SIGSTOP');

  const other = await run().ended;
  expect(other.code, describeEnd('the other runner', other)).toBe(4);
  frozen.process.kill('SIGCONT');
  const resumed = await frozen.ended;
  expect(resumed.code, describeEnd('the resumed runner', resumed)).toBe(75);
  return resumed;
}
