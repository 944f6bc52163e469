// The crash loop: run, SIGKILL per plan, restart; resolve uncertain items as an operator would; until
// a run exits 0 on its own.
import { watch } from 'node:fs';
import type { RequestRecord, Simulator } from '../../../src/sim/index.js';
import type { Campaign } from './campaign.js';
import { describeEnd, gbatch, runArgs, startGbatch, type Gateway, type GbatchChild } from './gbatch-child.js';
import { describePlan, planKill, type Baseline, type KillPlan } from './kill-plan.js';
import { decideResolution, resolveArgs } from './operator.js';
import { createPrng } from './prng.js';
import { readReport } from './proof.js';
import type { SimWatch } from './sim-watch.js';

export interface LoopOptions {
  campaign: Campaign;
  dir: string;
  sim: Simulator;
  watch: SimWatch;
  gateway: Gateway;
  seed: number;
  maxKills: number;
  baseline: Baseline;
  /** A campaign that needs more runs than this is stuck. */
  maxRounds?: number;
}

export interface LoopOutcome {
  kills: number;
  rounds: number;
  attached: number;
  resubmitted: number;
  /** Per text row id: charged calls whose answers were lost, resent on the operator's decision. */
  lostChargedCalls: Map<string, number>;
  /** One line per round and decision, for failure messages. */
  log: string[];
  /** stdout and stderr of every command, killed ones included. */
  printed: string;
}

export async function runUntilDone(options: LoopOptions): Promise<LoopOutcome> {
  const { campaign, dir, sim, gateway, maxKills, baseline } = options;
  const prng = createPrng(options.seed);
  const outcome: LoopOutcome = {
    kills: 0,
    rounds: 0,
    attached: 0,
    resubmitted: 0,
    lostChargedCalls: new Map(),
    log: [`seed ${options.seed}`],
    printed: '',
  };
  const statePath = `${dir}/j.db`;
  for (let round = 0; round < (options.maxRounds ?? 40); round++) {
    outcome.rounds = round + 1;
    const plan = planKill(outcome.kills, maxKills, prng, baseline);
    const child = startGbatch(runArgs(campaign.jobFile, dir), gateway);
    const disarm = arm(child, plan, options.watch, dir);
    const ended = await child.ended;
    disarm();
    const elapsed = Date.now() - child.startedAt;
    outcome.printed += ended.stdout + ended.stderr;
    if (ended.signal === 'SIGKILL') {
      outcome.kills++;
      await options.watch.quiet();
      const requests = sim.ledger.requests.length;
      outcome.log.push(
        `round ${round}: ${describePlan(plan)} -> killed after ${elapsed} ms (ledger requests ${requests})`,
      );
      continue;
    }
    outcome.log.push(
      `round ${round}: ${describePlan(plan)} -> exit ${ended.code} after ${elapsed} ms (ledger requests ${sim.ledger.requests.length})`,
    );
    if (ended.code === 0) {
      outcome.log.push(
        `done: ${outcome.kills} kill(s), ${outcome.attached} task(s) attached, ${outcome.resubmitted} resubmitted`,
      );
      return outcome;
    }
    if (ended.code !== 4) throw new Error(`${outcome.log.join('\n')}\n${describeEnd('gbatch run', ended)}`);
    await resolveUncertain(options, statePath, outcome);
  }
  throw new Error(`the campaign did not finish in ${outcome.rounds} runs:\n${outcome.log.join('\n')}`);
}

/** Exit 4: decide every uncertain item from the ledger, with `gbatch resolve`. */
async function resolveUncertain(options: LoopOptions, statePath: string, outcome: LoopOutcome): Promise<void> {
  const { campaign, sim, gateway } = options;
  const report = await readReport(statePath, gateway);
  const uncertain = report.items.filter((i) => i.state === 'uncertain');
  if (uncertain.length === 0) throw new Error(`run exited 4 with no uncertain item:\n${outcome.log.join('\n')}`);
  const history = { tasks: sim.ledger.tasks, submissionsByPrompt: sim.ledger.submissionsByPrompt() };
  const decisions = uncertain.map((item) => {
    const row = campaign.rows.find((r) => r.id === item.id)!;
    const decision = decideResolution(row, history);
    if (decision.kind === 'attach') outcome.attached++;
    else {
      outcome.resubmitted++;
      if (row.kind !== 'video') outcome.lostChargedCalls.set(row.id, decision.chargedCalls);
    }
    outcome.log.push(
      `  resolve ${item.id}: ${decision.kind === 'attach' ? `attach ${decision.taskId}` : `resubmit (${decision.chargedCalls} charged call(s) upstream)`}`,
    );
    return { id: item.id, decision };
  });
  // One command at a time, as an operator types them (concurrent ones: crash.concurrent-writers.test.ts).
  for (const { id, decision } of decisions) {
    const ended = await gbatch(resolveArgs(statePath, id, decision), gateway);
    outcome.printed += ended.stdout + ended.stderr;
    if (ended.code !== 0) throw new Error(`${outcome.log.join('\n')}\n${describeEnd(`gbatch resolve ${id}`, ended)}`);
  }
}

/** Sets up the kill; returns the function that disarms it. */
function arm(child: GbatchChild, plan: KillPlan, simWatch: SimWatch, dir: string): () => void {
  switch (plan.at) {
    case 'never':
      return () => undefined;
    case 'time': {
      const timer = setTimeout(() => child.kill(), plan.ms);
      return () => clearTimeout(timer);
    }
    case 'request': {
      let seen = 0;
      const onRequest = (entry: RequestRecord): void => {
        if (plan.videoSubmission && !(entry.method === 'POST' && entry.path.endsWith('/video/generations'))) return;
        if (++seen === plan.n) child.kill();
      };
      simWatch.events.on('request', onRequest);
      return () => simWatch.events.off('request', onRequest);
    }
    case 'wal-write': {
      const watcher = watch(dir, (_event, file) => {
        if (file === 'j.db-wal') child.kill();
      });
      return () => watcher.close();
    }
  }
}
