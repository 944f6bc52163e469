// `gbatch serve`: the OpenAI Batch API in front of the gateway, until SIGINT or SIGTERM.
import { BUILTIN_PRICING, parsePricing } from '../../core/pricing.js';
import { printable } from '../../core/printable.js';
import { readBoundedText } from '../../io/bounded-read.js';
import { gatewayAccess } from '../../job/job.js';
import { UsageError } from '../../job/options.js';
import { SERVE_OPTIONS } from '../../serve/options.js';
import { startServe } from '../../serve/server.js';
import { allowedHosts } from '../allowed-hosts.js';
import { refuseShortToken } from '../short-token.js';
import { clientTokens, readTokens } from '../../serve/tokens.js';
import { commandRunner, type CommandUsage } from '../command-args.js';
import { serveUntilSignal } from '../serve-until-signal.js';

const ABOUT = `
Serves OpenAI's Batch API (POST/GET /v1/files, /v1/files/{id}/content, POST/GET /v1/batches,
/v1/batches/{id}/cancel) for the gateway GATEWAY_BASE_URL, with the key GATEWAY_API_KEY (never shown to a
client). Each batch is a job of the journal named by its batch id, run as \`gbatch run\` runs a job:
\`gbatch status\`, \`report\`, \`resolve\` and \`cancel\` work on it. Clients authenticate with a bearer token
among GBATCH_SERVE_TOKENS (comma-separated) or the file GBATCH_SERVE_TOKENS_FILE; each sees only its own
files and batches. metadata.budget_usd caps what the gateway may bill for a batch.
`;

const USAGE: CommandUsage = { synopsis: '[options]', about: ABOUT, noArguments: true };

export const run = commandRunner('serve', SERVE_OPTIONS, USAGE, async ({ options }) => {
  const tokens = readTokens(process.env);
  refuseShortToken(tokens, 'GBATCH_SERVE_TOKENS');
  if (tokens.length === 0 && !options['no-auth'])
    throw new UsageError(
      'No client tokens: set GBATCH_SERVE_TOKENS (comma-separated) or GBATCH_SERVE_TOKENS_FILE, or pass --no-auth (loopback only)',
    );
  const access = gatewayAccess({}, process.env);
  let pricing = BUILTIN_PRICING;
  if (options.pricing !== undefined) {
    try {
      pricing = parsePricing(readBoundedText(options.pricing, 'pricing file'), options.pricing);
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
  }
  return serveUntilSignal(
    'serve',
    options.port,
    () =>
      startServe({
        host: options.host,
        port: options.port,
        dataDir: options.data,
        s3Endpoint: options['s3-endpoint'],
        s3PathStyle: options['s3-path-style'],
        journal: options.journal ?? process.env.GBATCH_JOURNAL_URL,
        pricing,
        pricingFile: options.pricing,
        concurrency: options.concurrency,
        pollIntervalS: options['poll-interval'],
        retryFailed: options['retry-failed'],
        retryBackoffS: options['retry-backoff'],
        budgetUsd: options.budget,
        rpm: options.rpm,
        maxFileBytes: options['max-file-bytes'],
        allowedHosts: allowedHosts(options['allowed-host']),
        access,
        tokens: options['no-auth'] && tokens.length === 0 ? undefined : clientTokens(tokens),
        env: process.env,
        log: (line) => process.stderr.write(`gbatch serve: ${printable(line)}\n`),
      }),
    ' (batches in progress carry on at the next start)',
  );
});
