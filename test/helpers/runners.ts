// Several `gbatch run` processes on one job and one PostgreSQL journal, as hosts would start them.
import { gbatch, startGbatch, type Ended, type Gateway, type GbatchChild } from './crash/gbatch-child.js';

/** The `run` arguments of a runner of `jobFile` on the journal `url`. */
export function runnerArgs(jobFile: string, url: string, outDir: string, extra: readonly string[] = []): string[] {
  return [
    'run',
    jobFile,
    '--journal',
    url,
    '--out',
    outDir,
    '--poll-interval',
    '0.05',
    '--concurrency',
    '8',
    '--quiet',
    ...extra,
  ];
}

/** Runners started with the same arguments; each slot can be killed and started again. */
export class RunnerPool {
  readonly slots: GbatchChild[] = [];
  private readonly ended: Ended[] = [];

  constructor(
    private readonly args: readonly string[],
    private readonly gateway: Gateway,
    private readonly env: NodeJS.ProcessEnv = {},
  ) {}

  start(count: number): void {
    for (let i = 0; i < count; i++) this.slots.push(this.spawn());
  }

  /** Starts the slot's runner again (after it was killed). */
  restart(slot: number): GbatchChild {
    const child = this.spawn();
    this.slots[slot] = child;
    return child;
  }

  running(): number[] {
    return this.slots.flatMap((child, i) => (child.running ? [i] : []));
  }

  /** Waits for every runner now in the pool to end. */
  async all(): Promise<Ended[]> {
    return Promise.all(this.slots.map((child) => child.ended));
  }

  /** What every runner printed (killed ones too). */
  printed(): string {
    return this.ended.map((e) => e.stdout + e.stderr).join('');
  }

  private spawn(): GbatchChild {
    const child = startGbatch(this.args, this.gateway, undefined, this.env);
    void child.ended.then((e) => this.ended.push(e));
    return child;
  }
}

export interface ReportJson {
  totals: {
    items: number;
    by_state: Record<string, number>;
    actual_usd: number;
    reserved_usd: number;
    budget_usd: number | null;
  };
  items: Array<{
    id: string;
    kind: string;
    state: string;
    task_id: string | null;
    actual_usd: number | null;
    output: string | null;
    sha256: string | null;
    bytes: number | null;
  }>;
}

export async function readReport(job: string, url: string, gateway: Gateway): Promise<ReportJson> {
  const ended = await gbatch(['report', job, '--journal', url, '--format', 'json'], gateway);
  if (ended.code !== 0) throw new Error(`gbatch report: exit ${ended.code}\n${ended.stdout}${ended.stderr}`);
  return JSON.parse(ended.stdout) as ReportJson;
}

/**
 * Waits for every child to end by itself within `deadlineMs`; past it, every child still running is killed and the
 * wait fails naming them: "it no longer hangs" is proven by the children ending, not by a margin of time.
 */
export async function endedWithin(children: readonly GbatchChild[], deadlineMs: number): Promise<Ended[]> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), deadlineMs);
  });
  const all = Promise.all(children.map((child) => child.ended));
  const first = await Promise.race([all, late]);
  clearTimeout(timer);
  if (first !== 'late') return first;
  const hung = children.flatMap((child, i) => (child.running ? [i] : []));
  for (const child of children) child.kill();
  const ends = await all;
  throw new Error(
    `runner(s) ${hung.join(', ')} still running after ${deadlineMs} ms (killed):\n` +
      ends.map((end, i) => `--- runner ${i} ---\n${end.stderr}`).join('\n'),
  );
}
