// The report's sums, added up here rather than by the server: SQLite's SUM over REAL is a
// Kahan-Babuska-Neumaier sum, PostgreSQL's over double precision a plain one, and the two differ in
// the last bits (0.0767 against 0.07669999999999999). Streaming the few money columns out with COPY and
// adding them with SQLite's own step, in manifest order, gives both adapters the same figures.
import type pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import type { ReportSums, SumRow } from '../store.js';
import { parseCopyField } from './copy-text.js';

/** SQLite's SUM() of REAL values (func.c: kahanBabuskaNeumaierStep, sumFinalize); null over no values. */
export class SqliteRealSum {
  private sum = 0;
  private err = 0;
  private count = 0;

  add(r: number): void {
    const s = this.sum;
    const t = s + r;
    if (Math.abs(s) > Math.abs(r)) this.err += s - t + r;
    else this.err += r - t + s;
    this.sum = t;
    this.count++;
  }

  value(): number | null {
    if (this.count === 0) return null;
    return Number.isFinite(this.err) ? this.sum + this.err : this.sum;
  }
}

/** SQLite's SUM() of INTEGER values: exact (every figure here is far below 2^53); null over no values. */
class IntegerSum {
  private sum = 0;
  private count = 0;
  add(n: number): void {
    this.sum += n;
    this.count++;
  }
  value(): number | null {
    return this.count === 0 ? null : this.sum;
  }
}

class SumsOf {
  items = 0;
  readonly settled = new IntegerSum();
  readonly estimated = new SqliteRealSum();
  readonly actual = new SqliteRealSum();
  readonly settledEstimated = new SqliteRealSum();
  readonly reserved = new SqliteRealSum();
  readonly over = new SqliteRealSum();
  readonly gateway = new SqliteRealSum();
  gatewayN = 0;
  readonly tokens = new IntegerSum();
  readonly unmetered = new IntegerSum();

  add(row: MoneyRow): void {
    this.items++;
    this.settled.add(row.actual === null ? 0 : 1);
    this.estimated.add(row.estimate);
    if (row.actual !== null) {
      this.actual.add(row.actual);
      this.settledEstimated.add(row.estimate);
      if (row.actual > row.estimate) this.over.add(row.actual - row.estimate);
    }
    this.reserved.add(row.reserved);
    if (row.gateway !== null) {
      this.gateway.add(row.gateway);
      this.gatewayN++;
    }
    if (row.tokens !== null) this.tokens.add(row.tokens);
    this.unmetered.add(row.unmetered);
  }

  row(): SumRow {
    return {
      items: this.items,
      settled: this.settled.value(),
      estimated: this.estimated.value(),
      actual: this.actual.value(),
      settled_estimated: this.settledEstimated.value(),
      reserved: this.reserved.value(),
      over: this.over.value(),
      gateway: this.gateway.value(),
      gateway_n: this.gatewayN,
      tokens: this.tokens.value(),
    };
  }
}

interface MoneyRow {
  model: string | null;
  resolution: string | null;
  state: string;
  estimate: number;
  actual: number | null;
  reserved: number;
  gateway: number | null;
  tokens: number | null;
  unmetered: number;
}

const number = (text: string | null): number | null => (text === null ? null : Number(text));

function parseRow(line: string): MoneyRow {
  const [model, resolution, state, estimate, actual, reserved, gateway, tokens, unmetered] = line
    .split('\t')
    .map(parseCopyField);
  return {
    model: model ?? null,
    resolution: resolution ?? null,
    state: state!,
    estimate: Number(estimate),
    actual: number(actual ?? null),
    reserved: Number(reserved),
    gateway: number(gateway ?? null),
    tokens: number(tokens ?? null),
    unmetered: Number(unmetered),
  };
}

/** NULL first, then byte order: SQLite's ORDER BY on TEXT. */
function compareText(a: string | null, b: string | null): number {
  if (a === b) return 0;
  if (a === null) return -1;
  if (b === null) return 1;
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

/** The job's sums: every row in the total, groups of model and resolution without invalid rows (no job: none). */
export async function reportSums(client: pg.ClientBase | undefined, jobId: number | undefined): Promise<ReportSums> {
  const total = new SumsOf();
  const groups = new Map<string, { model: string | null; resolution: string | null; sums: SumsOf }>();
  if (client === undefined || jobId === undefined) return { total: { ...total.row(), unmetered: null }, groups: [] };
  const stream = client.query(
    copyTo(`COPY (SELECT model, resolution, state, estimate_usd, actual_usd, reserved_usd, gateway_charge_usd,
    total_tokens, unmetered FROM items WHERE job_id = ${Math.trunc(jobId)} ORDER BY seq) TO STDOUT`),
  );
  let rest = '';
  const take = (line: string): void => {
    const row = parseRow(line);
    total.add(row);
    if (row.state === 'invalid') return;
    const key = JSON.stringify([row.model, row.resolution]);
    let group = groups.get(key);
    if (!group) groups.set(key, (group = { model: row.model, resolution: row.resolution, sums: new SumsOf() }));
    group.sums.add(row);
  };
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    const lines = (rest + chunk.toString('utf8')).split('\n');
    rest = lines.pop()!;
    for (const line of lines) take(line);
  }
  if (rest !== '') take(rest);
  const ordered = [...groups.values()].sort(
    (a, b) => compareText(a.model, b.model) || compareText(a.resolution, b.resolution),
  );
  return {
    total: { ...total.row(), unmetered: total.unmetered.value() },
    groups: ordered.map((g) => ({ model: g.model as string, resolution: g.resolution, ...g.sums.row() })),
  };
}
