// A submission answered with differing `id` and `task_id` names one task by two ids, and the gateway
// polls it by either. `resolve --task-id` with either id of another row's task is that row's task: it is
// refused without --force (one line naming the row), on both journals, and nothing changes; a row's own
// task is attached by either id. Against the hostile gateway: its ledger is what was billed, and the
// report books exactly that once resolved. One job per journal holds every case (each command a process).
import { describe, expect, onTestFinished, test } from 'vitest';
import { BUILT, gatewayEnv, runCli, stdoutJson } from '../../helpers/cli.js';
import { videoRow, writeJsonl } from '../../helpers/manifests.js';
import { pgAvailable, usePgSchema } from '../../helpers/postgres.js';
import { workspace } from '../../helpers/workspace.js';
import {
  DEFAULTS,
  dropSubmission,
  sendJson,
  startHostileGateway,
  type HostileGateway,
  type HostileRequest,
  type Route,
} from '../../helpers/hostile-gateway.js';

const V0 = 'A comet over a frozen lake';
const V1 = 'A lantern drifting down a river';
const V2 = 'A heron taking off at dusk';

/** The gateway's own id for a task, answered as `id` beside the upstream task's (`task_id`); both poll it. */
const gatewayIdOf = (task: string) => `gw_${task}`;

/** Each submission answered `{ id: gw_<task>, task_id: <task> }`; v1's and v2's kept but never answered. */
async function aliasingGateway(): Promise<HostileGateway> {
  const unanswered = { writeHead: () => undefined, end: () => undefined };
  const answerWithBothIds: Route = (req, res, g) => {
    const before = new Set(g.tasks.keys());
    DEFAULTS.videoSubmit(req, unanswered as unknown as typeof res, g);
    const task = [...g.tasks.keys()].find((id) => !before.has(id))!;
    sendJson(res, 200, { id: gatewayIdOf(task), task_id: task, status: 'queued' });
  };
  const byEitherId =
    (route: Route): Route =>
    (req, res, g) => {
      const path = req.path.replace(/\/gw_([^/]+)/, '/$1');
      return route({ ...req, path } satisfies HostileRequest, res, g);
    };
  const gw = await startHostileGateway({
    pollsUntilDone: 0,
    routes: {
      videoSubmit: dropSubmission(
        (req) => (req.json?.prompt === V1 || req.json?.prompt === V2 ? 'keep' : undefined),
        answerWithBothIds,
      ),
      videoPoll: byEitherId(DEFAULTS.videoPoll),
      videoContent: byEitherId(DEFAULTS.videoContent),
    },
  });
  onTestFinished(() => gw.close());
  return gw;
}

const db = usePgSchema('gbatch_taskalias');
const ADAPTERS = [
  { adapter: 'sqlite', skip: false, journal: (): string[] => [] },
  { adapter: 'postgres', skip: !pgAvailable(), journal: (): string[] => ['--journal', db.url()] },
];

describe.each(ADAPTERS)('$adapter journal', ({ adapter, skip, journal }) => {
  test.skipIf(!BUILT || skip)(
    "resolve --task-id with another row's `id` or `task_id` (its answer named two ids) is refused without --force, exit 2; a row's own attaches by either",
    async () => {
      const gw = await aliasingGateway();
      const ws = workspace();
      const env = gatewayEnv(gw.baseUrl, gw.key);
      const job = `alias-${adapter}`;
      const manifest = writeJsonl(ws.path(`${job}.jsonl`), [
        videoRow('v0', V0),
        videoRow('v1', V1),
        videoRow('v2', V2),
      ]);
      const stored = adapter === 'sqlite' ? ['--state', ws.state] : journal();
      const run = () =>
        runCli(['run', manifest, ...stored, '--out', ws.out, '--poll-interval', '0.02', '--json', '--quiet'], { env });
      const named = adapter === 'sqlite' ? stored : [job, ...stored];
      const cli = (command: string, ...args: string[]) => runCli([command, ...named, ...args], { env });

      const first = await run();
      expect(first.code, first.stderr).toBe(4);
      const taskOf = (prompt: string) => [...gw.tasks.values()].find((t) => t.prompt === prompt)!.id;
      const [task0, task1, task2] = [taskOf(V0), taskOf(V1), taskOf(V2)];
      const states = stdoutJson(await cli('status', '--json')).counts;
      expect(states).toMatchObject({ downloaded: 1, uncertain: 2 });
      const answered = { id: gatewayIdOf(task0), task_id: task0 };

      // v0's task by either id its answer named: v0's, whichever id it holds the task by.
      for (const field of ['id', 'task_id'] as const) {
        const refused = await cli('resolve', 'v1', '--task-id', answered[field], '--no-verify');
        expect(refused.code, `${field}: ${refused.stderr}`).toBe(2);
        expect(refused.stderr.trim().split('\n')).toHaveLength(1);
        expect(refused.stderr).toMatch(
          new RegExp(
            `task ${answered[field]} (is already|was) item 'v0''s task.*pass --force to attach it anyway; nothing changed`,
          ),
        );
      }
      const uncertain = stdoutJson(await cli('status', '--json')).attention.uncertain.map((i: { id: string }) => i.id);
      expect(uncertain).toEqual(['v1', 'v2']);

      // Each row's own task (v1's by the gateway's id, v2's by the upstream one) is attached; the next run
      // downloads them; the report books what was billed.
      for (const [row, taskId] of [
        ['v1', gatewayIdOf(task1)],
        ['v2', task2],
      ] as const) {
        const own = await cli('resolve', row, '--task-id', taskId, '--no-verify');
        expect(own.code, own.stderr).toBe(0);
      }
      const second = await run();
      expect(second.code, second.stderr).toBe(0);
      const report = stdoutJson(await cli('report', '--format', 'json'));
      expect(report.totals.by_state).toEqual({ downloaded: 3 });
      expect(report.totals.actual_usd).toBeCloseTo(gw.billedUsd(), 6);
      expect(report.totals.reserved_usd).toBe(0);
      expect(gw.charges.map((c) => c.ref).sort()).toEqual([task0, task1, task2].sort());
      expect(gw.count('POST', '/v1/video/generations')).toBe(3);
    },
    90_000,
  );
});
