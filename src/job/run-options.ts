// The options of `run`, in one typed table (job files use the same names); `plan` takes a few of them.
// Defaults are applied after job-file options merge.
import { DEFAULT_RETRY_DELAY, DEFAULT_RETRY_FAILED } from '../core/auto-retry.js';
import { DEFAULT_DEADLINE_GRACE_S, DEFAULT_DRAIN, MAX_DEADLINE_AHEAD_MS } from '../core/deadline.js';
import { parseModelLimits } from '../core/model-limits.js';
import { HELP_OPTION, type OptionTable, type ParsedOptions } from './options.js';

export const RUN_OPTIONS = {
  state: { type: 'string', help: 'the SQLite journal (default: state/<job-name>.db)' },
  journal: {
    type: 'string',
    help: 'the journal on a database every runner can reach: a postgres:// URL (also GBATCH_JOURNAL_URL); runners started on several hosts share the job; its password never appears in output. A path means an SQLite file, as --state',
  },
  out: {
    type: 'string',
    help: 'where outputs go: a directory, or s3://bucket/prefix on S3-compatible object storage (credentials from the AWS_* variables and files) (default: out/<job-name>/)',
  },
  's3-endpoint': {
    type: 'string',
    help: 'the S3-compatible server of an s3:// --out, e.g. http://127.0.0.1:9000 (default: $AWS_ENDPOINT_URL, else AWS)',
  },
  's3-path-style': {
    type: 'boolean',
    help: 'address the bucket in the path (http://host/bucket/key), as S3-compatible servers expect; on when an endpoint is given',
  },
  pricing: { type: 'string', help: 'pricing file (default: the built-in table of the spec)' },
  concurrency: {
    type: 'number',
    integer: true,
    min: 1,
    max: 10_000,
    help: 'requests in flight at once: submissions and chat calls (default: 8)',
  },
  budget: {
    type: 'number',
    min: 0,
    help: 'hard cap in USD on what the gateway can bill the job, cumulative per journal: settled + reserved never exceeds it, each row reserving the most the spec lets the gateway charge for it (a dearer final resolution included); stored in the journal and kept by later runs',
  },
  'no-budget': { type: 'boolean', help: "lift the budget the job's journal holds (a run without --budget keeps it)" },
  'budget-may-overrun': {
    type: 'boolean',
    help: "opt-in: reserve each row's expected estimate instead of the most it can be billed; more rows fit, but the bill may exceed --budget when the gateway delivers a dearer final resolution",
  },
  'poll-interval': { type: 'number', min: 0.01, max: 3600, help: 'seconds between polls of one task (default: 5)' },
  'no-wait': { type: 'boolean', help: 'submit what can be submitted, then exit 75; a later run polls and downloads' },
  json: { type: 'boolean', help: 'one JSON summary object on stdout at the end (progress goes to stderr)' },
  'base-url': { type: 'string', help: 'gateway base URL, e.g. http://127.0.0.1:8080/v1 (default: $GATEWAY_BASE_URL)' },
  'meta-columns': {
    type: 'string',
    help: "CSV columns that are the row's metadata, comma-separated (notes,owner): kept in the journal and results.jsonl, never sent; a column named meta.<key> is metadata without being listed. Any other column that is not a request field is refused",
  },
  'skip-invalid': {
    type: 'boolean',
    help: 'record invalid rows as `invalid` and go on, instead of refusing the manifest',
  },
  'skip-changed': {
    type: 'boolean',
    help: 'skip a row changed under an id the journal already holds, instead of refusing the manifest: each is listed (file:line, id) at the start, the journal keeps its row as it was and sends nothing of it (as a row no manifest lists), and the rest runs; such rows do not change the exit code',
  },
  deadline: {
    type: 'duration',
    help: "at this time today (06:30; 06:30+1d for tomorrow's; one already past is refused), at an ISO instant, or after this long (45m; 0m = now) send nothing new; tasks already submitted are still polled and downloaded for --drain, then what is in flight is cut after --deadline-grace; exit 75 if work remains (4 if a cut left rows uncertain); the resolved instant is printed at start",
  },
  'deadline-grace': {
    type: 'number',
    min: 0,
    max: 3600,
    help: 'seconds requests in flight may still take after --deadline (or once the gateway is unreachable) before they are cut (default: 10)',
  },
  drain: {
    type: 'duration',
    help: 'after --deadline, how long tasks already submitted are still polled and downloaded (nothing new is submitted): 15m, 90s, 1h; 0 stops polling at the deadline (default: 15m)',
  },
  rpm: {
    type: 'number',
    integer: true,
    min: 1,
    help: "cap on every request to the gateway per minute (the account's limit): submissions, chat calls, polls and downloads; polls and downloads take at most --poll-rpm of it",
  },
  'poll-rpm': {
    type: 'number',
    integer: true,
    min: 1,
    help: 'cap on polls and content downloads per minute (default: half of --rpm; without --rpm, none)',
  },
  'model-limit': {
    type: 'string',
    multiple: true,
    check: (values) => {
      const parsed = parseModelLimits(values);
      return typeof parsed === 'string' ? parsed : undefined;
    },
    help: "per-model caps, this runner's own, under --concurrency and --rpm: video-pro=4 (in flight), chat-small=200rpm (per minute), video-pro=4+30rpm (both); comma-separated, repeatable; a limited model's rows wait aside while other models' rows go on",
  },
  'poll-concurrency': {
    type: 'number',
    integer: true,
    min: 1,
    max: 10_000,
    help: 'polls in flight at once (default: 64)',
  },
  'download-concurrency': {
    type: 'number',
    integer: true,
    min: 1,
    max: 1000,
    help: 'downloads in flight at once (default: 4)',
  },
  'max-attempts': {
    type: 'number',
    integer: true,
    min: 1,
    max: 100,
    help: 'attempts per submission the gateway answered without keeping (429, 5xx envelope) (default: 8)',
  },
  'resubmit-uncertain-text': {
    type: 'boolean',
    help: 'opt-in: resend uncertain chat/responses items automatically (never video), during the run as soon as one becomes uncertain and at the next start; each is reported',
  },
  'retry-failed': {
    type: 'number',
    integer: true,
    min: 0,
    max: 20,
    help: "send again a video item whose task failed (refunded) or a chat/responses item refused with 408 or 425, up to this many more times in the item's whole life (counted across runs; `gbatch retry` starts anew), waiting --retry-backoff doubled per retry; each attempt reserves again under --budget; 0 turns it off (default: 2)",
  },
  'retry-backoff': {
    type: 'number',
    min: 0.01,
    max: 3600,
    help: 'seconds before the first --retry-failed retry of an item; each further one waits twice as long, at most 15 minutes (default: 30)',
  },
  'journal-sync': {
    type: 'string',
    choices: ['full', 'off'],
    help: "journal durability; 'off' is for benchmarks only (default: full)",
  },
  'ingest-only': {
    type: 'boolean',
    help: 'run: validate and load the manifests into the journal, then stop; sends nothing, needs no gateway',
  },
  'max-response-bytes': {
    type: 'number',
    integer: true,
    min: 1024,
    help: 'largest answer read into memory (chat/responses body, poll, error); a larger chat/responses answer fails its row, booked at its reservation (default: 67108864, 64 MiB)',
  },
  notify: {
    type: 'string',
    multiple: true,
    help: 'POST a JSON summary to this http(s) URL when the run ends (repeatable; Slack-style webhooks accepted); retried, bounded, never changes the exit code; printed only as scheme://host/…',
  },
  'metrics-port': {
    type: 'number',
    integer: true,
    min: 0,
    max: 65535,
    help: 'serve GET /metrics (Prometheus text format) on this port while the run lives; 0 picks a free one (the address is printed on stderr). Bearer tokens from GBATCH_METRICS_TOKENS (comma-separated); without any, loopback only',
  },
  'metrics-host': {
    type: 'string',
    help: 'the address --metrics-port listens on (default: 127.0.0.1); one beyond loopback needs GBATCH_METRICS_TOKENS',
  },
  'push-metrics': {
    type: 'string',
    help: "at the run's end, PUT its final metrics to this Prometheus Pushgateway (URL/metrics/job/gbatch/instance/<job>), with gbatch_last_success_timestamp_seconds on exit 0; a failed push is a warning, never the exit code",
  },
  'notify-at': {
    type: 'string',
    help: 'also notify when the money billed (the charges of answered rows, settled or not; never reservations) crosses these percentages of the budget during the run, e.g. 50,80,100',
  },
  'notify-reserved-at': {
    type: 'string',
    help: 'an early warning: also notify when billed plus reserved for requests in flight (the sum the budget caps) crosses these percentages of the budget during the run',
  },
  'if-running': {
    type: 'string',
    choices: ['wait', 'skip', 'fail'],
    help: "when the job's runner is still alive (last night's run): fail (exit 73, the default), skip (exit 5) or wait for it (bounded by --if-running-timeout and --deadline; then exit 73). On a PostgreSQL journal a run joins the job's runners unless this is given",
  },
  'if-running-timeout': {
    type: 'number',
    min: 0,
    max: MAX_DEADLINE_AHEAD_MS / 1000,
    help: 'seconds --if-running wait waits at most, up to 366 days as --deadline (default: 3600)',
  },
  progress: {
    type: 'string',
    choices: ['auto', 'live', 'plain', 'json', 'none'],
    help: "progress on stderr: 'live' redraws a frame in place (lanes, rate, ETA, budget, errors), 'plain' prints a timestamped line on each change of phase and every 30 s, 'json' writes snapshots as NDJSON, 'none' only the run's messages; 'auto' is live on a terminal, plain elsewhere (default: auto)",
  },
  quiet: { type: 'boolean', help: "no progress on stderr (as --progress none); the run's messages still print" },
  help: HELP_OPTION,
} as const satisfies OptionTable;

/** The flags of `run` (and job files); `plan`'s own come along when it was plan that parsed them. */
export type RunFlags = ParsedOptions<typeof RUN_OPTIONS> & Partial<ParsedOptions<typeof PLAN_ONLY_OPTIONS>>;

export const RUN_DEFAULTS = {
  concurrency: 8,
  'poll-interval': 5,
  'poll-concurrency': 64,
  'download-concurrency': 4,
  'max-attempts': 8,
  'retry-failed': DEFAULT_RETRY_FAILED,
  'retry-backoff': DEFAULT_RETRY_DELAY.baseDelayMs / 1000,
  'deadline-grace': DEFAULT_DEADLINE_GRACE_S,
  drain: DEFAULT_DRAIN,
  'journal-sync': 'full',
  'max-response-bytes': 64 * 1024 * 1024,
} as const;

/** The run flags `plan` uses: a new run flag stays out of plan's parsing and help unless added here. */
export const PLAN_FLAG_NAMES = [
  'state',
  'journal',
  'pricing',
  'budget',
  'no-budget',
  'budget-may-overrun',
  'meta-columns',
  'skip-invalid',
  'skip-changed',
  'json',
  'help',
] as const satisfies ReadonlyArray<keyof typeof RUN_OPTIONS>;

type PlanFlagName = (typeof PLAN_FLAG_NAMES)[number];

/** Flags only `plan` has (not job options). */
export const PLAN_ONLY_OPTIONS = {
  'show-requests': {
    type: 'number',
    integer: true,
    min: 1,
    help: 'print the exact JSON bodies of the first N valid rows, as `run` would send them (control characters escaped)',
  },
} as const satisfies OptionTable;

/** Help texts that read differently for `plan`. */
const PLAN_HELP: Partial<Record<PlanFlagName, string>> = {
  budget: 'USD: say whether the job fits (a run sends what fits and defers the rest)',
  json: 'one JSON object on stdout (rows, errors, estimate, fits_budget, by_model)',
};

export const PLAN_OPTIONS = {
  ...(Object.fromEntries(
    PLAN_FLAG_NAMES.map((name) => {
      const help = PLAN_HELP[name];
      return [name, help === undefined ? RUN_OPTIONS[name] : { ...RUN_OPTIONS[name], help }];
    }),
  ) as { [K in PlanFlagName]: (typeof RUN_OPTIONS)[K] }),
  ...PLAN_ONLY_OPTIONS,
};

/** `--meta-columns notes, owner` as the list of column names. */
export function metaColumnList(value: string | undefined): string[] {
  return value === undefined
    ? []
    : value
        .split(',')
        .map((name) => name.trim())
        .filter((name) => name !== '');
}
