// `gbatch models`: the models a manifest may name (the pricing table's, and the gateway's /v1/models when
// a gateway is configured), with each video model's resolutions and durations, as a table or JSON.
import { EXIT_CODE } from '../../core/exit-codes.js';
import { modelCatalog, type CatalogModel } from '../../core/model-catalog.js';
import { printable } from '../../core/printable.js';
import { createGatewayClient } from '../../gateway/client.js';
import { apiKeyFromEnv } from '../../job/api-key.js';
import { gatewayBaseUrl, resolvePricing } from '../../job/job.js';
import { HELP_OPTION, type OptionTable } from '../../job/options.js';
import { RUN_OPTIONS } from '../../job/run-options.js';
import { renderTable } from '../../report/table.js';
import { commandRunner, type CommandUsage } from '../command-args.js';

export const OPTIONS = {
  pricing: RUN_OPTIONS.pricing,
  'base-url': RUN_OPTIONS['base-url'],
  json: { type: 'boolean', help: 'print one JSON object' },
  help: HELP_OPTION,
} as const satisfies OptionTable;

/** The longest a gateway's reason is quoted, and a model id it lists is shown. */
const MAX_REASON = 300;
const MAX_MODEL_ID = 200;
/** The most of the gateway's model list read: a list is a few KiB. */
const MAX_LIST_BYTES = 4 * 1024 * 1024;

/** What came of asking the gateway for its model list. */
export type GatewayAnswer =
  | { status: 'listed'; url: string; ids: string[] }
  | { status: 'not-asked'; url: null; reason: string }
  | { status: 'not-reached'; url: string; reason: string };

const USAGE: CommandUsage = {
  synopsis: '[--pricing F] [--base-url URL] [--json]',
  noArguments: true,
};

export const run = commandRunner('models', OPTIONS, USAGE, async ({ options }) => {
  const pricing = resolvePricing(options.pricing);
  const gateway = await askGateway(options['base-url'], process.env);
  const models = modelCatalog(pricing.table, gateway.status === 'listed' ? gateway.ids : undefined);
  const lines = options.json
    ? [JSON.stringify(modelsJson(pricing.source, gateway, models))]
    : modelsText(pricing.source, gateway, models);
  process.stdout.write(`${lines.join('\n')}\n`);
  return gateway.status === 'not-reached' ? EXIT_CODE.someFailed : EXIT_CODE.ok;
});

async function askGateway(baseUrlFlag: string | undefined, env: NodeJS.ProcessEnv): Promise<GatewayAnswer> {
  if ((baseUrlFlag ?? env.GATEWAY_BASE_URL ?? '') === '')
    return { status: 'not-asked', url: null, reason: 'no gateway configured (GATEWAY_BASE_URL or --base-url)' };
  // A malformed URL is bad configuration (exit 2); a missing key only keeps the gateway's list out of reach.
  const baseUrl = gatewayBaseUrl({ 'base-url': baseUrlFlag }, env);
  let apiKey: string;
  try {
    apiKey = apiKeyFromEnv(env);
  } catch (err) {
    return { status: 'not-reached', url: baseUrl, reason: reasonText(err) };
  }
  const access = { baseUrl, apiKey };
  const client = createGatewayClient({
    ...access,
    connections: 1,
    connectTimeoutMs: 5_000,
    headersTimeoutMs: 10_000,
    bodyTimeoutMs: 10_000,
    maxResponseBytes: MAX_LIST_BYTES,
    backoff: { baseMs: 200, maxMs: 1_000, maxAttempts: 2 },
  });
  try {
    const ids = await client.listModels();
    return { status: 'listed', url: access.baseUrl, ids: ids.map((id) => capped(id, MAX_MODEL_ID)) };
  } catch (err) {
    return { status: 'not-reached', url: access.baseUrl, reason: reasonText(err) };
  } finally {
    await client.close();
  }
}

function reasonText(err: unknown): string {
  return capped(printable(err instanceof Error ? err.message : String(err)), MAX_REASON);
}

const capped = (text: string, most: number): string => (text.length > most ? `${text.slice(0, most)}…` : text);

function durationsText(model: CatalogModel): string {
  const d = model.durations;
  return d === null ? '' : `${d.minSeconds}-${d.maxSeconds} s (default ${d.defaultSeconds} s)`;
}

const yesNo = (value: boolean | null): string => (value === null ? '?' : value ? 'yes' : 'no');

function gatewayLine(gateway: GatewayAnswer): string {
  switch (gateway.status) {
    case 'listed':
      return `Gateway ${printable(gateway.url)}: ${gateway.ids.length} model(s) listed for this key.`;
    case 'not-asked':
      return `Gateway not asked: ${gateway.reason}; the pricing table's models only.`;
    case 'not-reached':
      return `Gateway ${printable(gateway.url)} not reached: ${gateway.reason}; the pricing table's models only.`;
  }
}

export function modelsText(pricingSource: string, gateway: GatewayAnswer, models: readonly CatalogModel[]): string[] {
  const out = [`Pricing: ${printable(pricingSource)}`, gatewayLine(gateway), ''];
  out.push(
    renderTable(
      ['model', 'kind', 'priced', 'on gateway', 'resolutions', 'durations'],
      models.map((m) => [
        printable(m.id),
        m.kind,
        yesNo(m.priced),
        yesNo(m.onGateway),
        m.resolutions.join(', '),
        durationsText(m),
      ]),
    ),
  );
  const unpriced = models.filter((m) => !m.priced).length;
  if (unpriced > 0)
    out.push(
      '',
      `${unpriced} model(s) the gateway lists have no price in this pricing table: plan and run refuse their rows until --pricing prices them.`,
    );
  const missing = models.filter((m) => m.onGateway === false).length;
  if (missing > 0)
    out.push(
      '',
      `${missing} priced model(s) the gateway does not list for this key: rows naming them are refused by the gateway.`,
    );
  if (models.some((m) => m.durations !== null))
    out.push(
      '',
      'Durations are the range the spec accepts (section 8); a model may narrow it. An omitted resolution is billed as 720p.',
    );
  return out;
}

function modelsJson(
  pricingSource: string,
  gateway: GatewayAnswer,
  models: readonly CatalogModel[],
): Record<string, unknown> {
  return {
    pricing: pricingSource,
    gateway: {
      status: gateway.status,
      url: gateway.url,
      ...(gateway.status === 'listed' ? { models: gateway.ids.length } : { reason: gateway.reason }),
    },
    models: models.map((m) => ({
      id: m.id,
      kind: m.kind,
      priced: m.priced,
      on_gateway: m.onGateway,
      resolutions: m.resolutions,
      durations:
        m.durations === null
          ? null
          : { min_s: m.durations.minSeconds, max_s: m.durations.maxSeconds, default_s: m.durations.defaultSeconds },
    })),
  };
}
