// `gbatch serve`'s flags: where it listens, where it keeps files and the journal, and the run options
// every batch shares (pricing, one --concurrency, one --budget).
import { HELP_OPTION, type OptionTable } from '../job/options.js';
import { RUN_OPTIONS } from '../job/run-options.js';

export const SERVE_OPTIONS = {
  host: { type: 'string', default: '127.0.0.1', help: 'the address to listen on' },
  port: { type: 'number', default: 8090, min: 0, max: 65535, integer: true, help: 'the port (0: any free one)' },
  data: {
    type: 'string',
    default: 'serve-data',
    help: 'the folder of uploaded files, batch outputs (videos) and, with SQLite, the journals; or s3://bucket/prefix for the files and outputs only (then --journal is required)',
  },
  's3-endpoint': {
    ...RUN_OPTIONS['s3-endpoint'],
    help: 'the S3-compatible server of an s3:// --data, e.g. http://127.0.0.1:9000 (default: $AWS_ENDPOINT_URL, else AWS)',
  },
  's3-path-style': RUN_OPTIONS['s3-path-style'],
  journal: {
    type: 'string',
    help: 'the journal: an SQLite file (default: <data>/serve.db; each batch then has its own <data>/journals/<batch>.db, or <folder of the file>/journals/ with an s3:// --data) or a postgres:// URL (default: GBATCH_JOURNAL_URL)',
  },
  pricing: { type: 'string', help: 'pricing file (default: the built-in table of the spec)' },
  concurrency: {
    type: 'number',
    default: 8,
    min: 1,
    max: 1000,
    integer: true,
    help: 'submissions in flight, all batches together (each batch gets its turn)',
  },
  'poll-interval': { type: 'number', default: 5, min: 0.01, max: 3600, help: 'seconds between polls of one task' },
  // As `run` takes them: one policy for every batch of the server.
  'retry-failed': {
    ...RUN_OPTIONS['retry-failed'],
    help: "send again a request whose video task failed (refunded) or that was refused with 408 or 425, up to this many more times in its batch's life, waiting --retry-backoff doubled each time; 0 turns it off (default: 2)",
  },
  'retry-backoff': {
    ...RUN_OPTIONS['retry-backoff'],
    help: 'seconds before the first --retry-failed retry of a request; each further one waits twice as long, at most 15 minutes (default: 30)',
  },
  rpm: {
    type: 'number',
    min: 1,
    help: "the account's requests per minute, all batches together (submissions, polls, downloads)",
  },
  budget: {
    type: 'number',
    min: 0,
    help: 'USD the gateway may bill for all batches together (each batch also takes its metadata.budget_usd)',
  },
  'max-file-bytes': {
    type: 'number',
    default: 512 * 1024 * 1024,
    min: 1,
    integer: true,
    help: 'the largest upload accepted, in bytes',
  },
  'allowed-host': {
    type: 'string',
    multiple: true,
    help: 'a name (or name:port) besides its own address that the server answers to, e.g. behind a proxy (repeatable)',
  },
  'no-auth': {
    type: 'boolean',
    help: 'accept clients without a token (listens on loopback only); otherwise GBATCH_SERVE_TOKENS or GBATCH_SERVE_TOKENS_FILE',
  },
  help: HELP_OPTION,
} as const satisfies OptionTable;
