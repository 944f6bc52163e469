// A client's cancel at each point of a batch's life, on SQLite and on PostgreSQL (there also with a second
// server sharing the journal): the cancel is in the journal before it is answered, and no run (this
// server's, another's, a restarted one's) sends a request after the answer. The gateway's ledger is the
// record of what was sent: its count at the answer is its count at the end; every request that never
// left ends `batch_cancelled`, and the batch `cancelled`.
import { createReadStream } from 'node:fs';
import { join } from 'node:path';
import type OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { BUILT } from '../../helpers/cli.js';
import { pgAvailable, usePgSchema } from '../../helpers/postgres.js';
import {
  batchEnd,
  chatLine,
  client,
  filesOf,
  heldGateway,
  restartAfterSigkill,
  startServe,
  writeLines,
  type ServeChild,
  type ServeOptions,
} from '../../helpers/serve.js';
import { duplicates, posts, startSim } from '../../helpers/sim.js';
import { workspace } from '../../helpers/workspace.js';
import type { Simulator } from '../../../src/sim/index.js';

const pg = usePgSchema('gbatch_serve_cancel');

interface Scene {
  sim: Simulator;
  gate: ReturnType<typeof heldGateway>;
  servers: ServeChild[];
  options: ServeOptions;
  ids: string[];
  /** The uploaded input (on the first server): its id, and the file the server keeps it in. */
  input: { id: string; path: string; text: string };
  create(): Promise<OpenAI.Batch>;
}

async function scene(
  journal: string[],
  opts: { rows: number; concurrency: number; passFirst: number; servers?: number },
): Promise<Scene> {
  const ws = workspace('gbatch-serve-cancel-');
  const gate = heldGateway(opts.passFirst);
  const sim = await startSim({ clock: gate.clock, faults: { latencyMs: 1 } });
  const options: ServeOptions = {
    data: ws.path('data'),
    gateway: sim.baseUrl,
    args: ['--concurrency', String(opts.concurrency), ...journal],
  };
  const servers: ServeChild[] = [];
  for (let n = 0; n < (opts.servers ?? 1); n++) servers.push(await startServe(options));
  const ids = Array.from({ length: opts.rows }, (_, i) => `x${String(i).padStart(3, '0')}`);
  const lines = ids.map((id) => chatLine(id, `cancel point ${id}`));
  const file = writeLines(ws.path('in.jsonl'), lines);
  const openai = client(servers[0]!);
  const uploaded = await openai.files.create({ file: createReadStream(file), purpose: 'batch' });
  return {
    sim,
    gate,
    servers,
    options,
    ids,
    input: {
      id: uploaded.id,
      path: join(options.data, 'files', `${uploaded.id}.jsonl`),
      text: lines.map((l) => JSON.stringify(l)).join('\n') + '\n',
    },
    create: () =>
      openai.batches.create({ input_file_id: uploaded.id, endpoint: '/v1/chat/completions', completion_window: '24h' }),
  };
}

/** The batch's end, logged by whichever server wrote it. */
const endOf = (servers: ServeChild[], id: string): Promise<string> =>
  Promise.race(servers.map((server) => batchEnd(server, id)));

/** The final batch, every request in exactly one file: `sent` answered, every other one batch_cancelled. */
async function expectCancelled(s: Scene, servers: ServeChild[], id: string, sent: number): Promise<void> {
  expect(await endOf(servers, id)).toBe('cancelled');
  expect(s.gate.count()).toBe(sent);
  expect(posts(s.sim.ledger)).toBe(sent);
  expect(duplicates(s.sim.ledger)).toEqual({});
  const openai = client(servers[0]!);
  const batch = await openai.batches.retrieve(id);
  expect(batch.status).toBe('cancelled');
  const { output, errors } = await filesOf(openai, batch);
  expect(output).toHaveLength(sent);
  expect(errors.map((l) => (l.error as { code: string }).code)).toEqual(
    Array(s.ids.length - sent).fill('batch_cancelled'),
  );
  expect([...output, ...errors].map((l) => l.custom_id).sort()).toEqual(s.ids);
  expect(batch.request_counts).toEqual({ total: s.ids.length, completed: sent, failed: s.ids.length - sent });
}

/** Cancels through `server`: answered `cancelling`; the requests that had reached the gateway then. */
async function cancelNow(s: Scene, server: ServeChild, id: string): Promise<number> {
  const answer = await client(server).batches.cancel(id);
  expect(answer.status).toBe('cancelling');
  return s.gate.count();
}

const adapters = [
  { name: 'SQLite', journal: (): string[] => [], skip: false },
  { name: 'PostgreSQL', journal: (): string[] => ['--journal', pg.url()], skip: !pgAvailable() },
];

describe.skipIf(!BUILT)('gbatch serve: a cancel is durable before it is answered, and final', () => {
  for (const adapter of adapters) {
    describe.skipIf(adapter.skip)(adapter.name, () => {
      it('first send: a cancel with the first request on the wire sends no other', async () => {
        const s = await scene(adapter.journal(), { rows: 20, concurrency: 1, passFirst: 0 });
        const created = await s.create();
        await s.gate.arrived(1);
        expect(await cancelNow(s, s.servers[0]!, created.id)).toBe(1);
        s.gate.release();
        await expectCancelled(s, s.servers, created.id, 1);
      }, 60_000);

      it('mid-run: a cancel after some answers sends nothing more than what was on the wire', async () => {
        const s = await scene(adapter.journal(), { rows: 30, concurrency: 2, passFirst: 3 });
        const created = await s.create();
        // Three answered, two held on the wire, both send slots taken.
        await s.gate.arrived(5);
        expect(await cancelNow(s, s.servers[0]!, created.id)).toBe(5);
        s.gate.release();
        await expectCancelled(s, s.servers, created.id, 5);
      }, 60_000);

      it('a server SIGKILLed after answering the cancel sends nothing once restarted', async () => {
        const s = await scene(adapter.journal(), { rows: 20, concurrency: 1, passFirst: 0 });
        // A killed server's lease on the job runs out in a second here, not 30.
        s.options.env = { GBATCH_LOCK_STALE_MS: '1000' };
        const created = await s.create();
        await s.gate.arrived(1);
        expect(await cancelNow(s, s.servers[0]!, created.id)).toBe(1);
        const restarted = await restartAfterSigkill(s.servers[0]!, s.options);
        s.gate.release();
        expect(await batchEnd(restarted, created.id)).toBe('cancelled');
        expect(s.gate.count()).toBe(1);
        expect(duplicates(s.sim.ledger)).toEqual({});
        const openai = client(restarted);
        const batch = await openai.batches.retrieve(created.id);
        const { output, errors } = await filesOf(openai, batch);
        expect(output).toEqual([]);
        // The one on the wire at the kill may have been billed: uncertain, never sent again.
        const codes = errors.map((l) => (l.error as { code: string }).code);
        expect(codes.filter((c) => c === 'uncertain')).toHaveLength(1);
        expect(codes.filter((c) => c === 'batch_cancelled')).toHaveLength(s.ids.length - 1);
        expect(batch.request_counts).toEqual({ total: s.ids.length, completed: 0, failed: s.ids.length });
      }, 60_000);
    });
  }

  describe.skipIf(!pgAvailable())('two servers on one PostgreSQL journal', () => {
    it('a cancel through the other server mid-run: what was on the wire settles, nothing more leaves', async () => {
      // One server takes the batch up before the other runs: its two slots hold the two requests on the wire.
      const s = await scene(['--journal', pg.url()], { rows: 30, concurrency: 2, passFirst: 3, servers: 1 });
      const created = await s.create();
      await s.gate.arrived(5);
      const other = await startServe(s.options);
      expect(await cancelNow(s, other, created.id)).toBe(5);
      s.gate.release();
      await expectCancelled(s, [...s.servers, other], created.id, 5);
    }, 60_000);
  });
});
