// Jobs whose start forecast is learned from a history: a gateway that delivers (and bills) 480p videos at 720p,
// so what was billed differs from the price table's estimate; the rows such jobs send; their runs, as a user
// starts them, each with its own output folder.
import { onTestFinished } from 'vitest';
import { runCli, type CliResult } from './cli.js';
import { startHostileGateway, type HostileGateway } from './hostile-gateway.js';
import { chatRow, videoRow } from './manifests.js';
import type { Workspace } from './workspace.js';

/** The gateway billing 480p videos at 720p, closed when the test finishes. */
export async function startDearerGateway(): Promise<HostileGateway> {
  const gw = await startHostileGateway({
    finalResolution: (task) => (task.resolution === '480p' ? '720p' : task.resolution),
  });
  onTestFinished(() => gw.close());
  return gw;
}

/**
 * One video first (billed at 720p for its 480p estimate), then chat rows with prompts of one length (so alike),
 * each billed its whole output cap.
 */
export function videoThenChats(tag: string, chats: number): Array<Record<string, unknown>> {
  return [
    videoRow(`${tag}-v`, `A harbour at dawn ${tag}`),
    ...Array.from({ length: chats }, (_, i) =>
      chatRow(`${tag}-c${i}`, `Question ${tag} ${String(i).padStart(3, '0')}`, {
        model: 'chat-large',
        max_tokens: 4000,
      }),
    ),
  ];
}

/** `gbatch run <manifest> --json --quiet` on `job`'s journal (`journalArgs`), polling every 10 ms. */
export type ForecastRun = (manifest: string, job: string, extra?: string[]) => Promise<CliResult>;

export function forecastRun(
  ws: Workspace,
  env: Record<string, string>,
  journalArgs: (job: string) => string[],
): ForecastRun {
  return (manifest, job, extra = []) =>
    runCli(
      [
        'run',
        manifest,
        ...journalArgs(job),
        '--out',
        ws.path(`out-${job}`),
        '--poll-interval',
        '0.01',
        '--quiet',
        '--json',
        ...extra,
      ],
      { env },
    );
}
