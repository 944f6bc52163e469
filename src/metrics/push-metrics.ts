// `gbatch run --push-metrics URL`: the run's final figures to a Prometheus Pushgateway, as a cron job
// should publish them (PUT /metrics/job/gbatch/instance/<job>: this job's group replaced whole).
import { Pushgateway, type Registry } from 'prom-client';

const PUSH_TIMEOUT_MS = 10_000;

/** Resolves once pushed; rejects with the reason it was not (the caller warns: never the run's outcome). */
export async function pushMetrics(url: string, job: string, registry: Registry): Promise<void> {
  const gateway = new Pushgateway(url.replace(/\/+$/, ''), { timeout: PUSH_TIMEOUT_MS }, registry);
  await gateway.push({ jobName: 'gbatch', groupings: { instance: job } });
}

/** The URL as given, or why it cannot be used (a usage error before the run starts). */
export function checkPushUrl(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `--push-metrics ${JSON.stringify(value)} is not a URL`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `--push-metrics must be an http(s) URL`;
  return undefined;
}
