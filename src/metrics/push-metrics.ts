// `gbatch run --push-metrics URL`: the run's final figures to a Prometheus Pushgateway, as a cron job
// should publish them (PUT /metrics/job/gbatch/instance/<job>: this job's group replaced whole).
import { Pushgateway, type Registry } from 'prom-client';

const PUSH_TIMEOUT_MS = 10_000;

/** Resolves once pushed; rejects with the reason it was not (the caller warns: never the run's outcome). */
export async function pushMetrics(url: string, job: string, registry: Registry): Promise<void> {
  const gateway = new Pushgateway(url.replace(/\/+$/, ''), { timeout: PUSH_TIMEOUT_MS }, registry);
  await gateway.push({ jobName: 'gbatch', groupings: { instance: job } });
}
