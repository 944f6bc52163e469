// `gbatch ui`: a dashboard of every job in the journal, until SIGINT or SIGTERM.
import { printable } from '../../core/printable.js';
import { selectedJournal } from '../../job/journal-selection.js';
import { UsageError } from '../../job/options.js';
import { UI_OPTIONS } from '../../ui/options.js';
import { startUi } from '../../ui/server.js';
import { allowedHosts } from '../allowed-hosts.js';
import { refuseShortToken } from '../short-token.js';
import { readUiTokens } from '../../ui/ui-tokens.js';
import { commandRunner, type CommandUsage } from '../command-args.js';
import { serveUntilSignal } from '../serve-until-signal.js';

const ABOUT = `
Serves a dashboard of every job: those of a PostgreSQL journal (--journal, or GBATCH_JOURNAL_URL), else one
per SQLite journal in --state-dir (state/). Jobs, a job's figures (the report's, live while it runs), its
runners, problems and rows. Users sign in with a token among GBATCH_UI_TOKENS (comma-separated) or the file
GBATCH_UI_TOKENS_FILE, in the form or as a bearer token. Read-only unless --allow-actions: then cancel,
retry and resolve, each confirmed and recorded in the journal's event log with the user's token name.
`;

const USAGE: CommandUsage = { synopsis: '[options]', about: ABOUT, noArguments: true };

export const run = commandRunner('ui', UI_OPTIONS, USAGE, async ({ options }) => {
  const tokens = readUiTokens(process.env);
  refuseShortToken(
    tokens.map((t) => t.token),
    'GBATCH_UI_TOKENS',
  );
  if (tokens.length === 0 && !options['no-auth'])
    throw new UsageError(
      'No sign-in tokens: set GBATCH_UI_TOKENS (comma-separated) or GBATCH_UI_TOKENS_FILE, or pass --no-auth (loopback only)',
    );
  const { source, flag } = selectedJournal(options, process.env);
  return serveUntilSignal('ui', options.port, () =>
    startUi({
      host: options.host,
      port: options.port,
      source,
      sourceFlag: flag,
      tokens: tokens.length > 0 ? tokens : undefined,
      allowActions: options['allow-actions'] === true,
      allowedHosts: allowedHosts(options['allowed-host']),
      refreshMs: Math.round(options['refresh-interval'] * 1000),
      env: process.env,
      objectStore: {
        ...(options['s3-endpoint'] !== undefined ? { endpoint: options['s3-endpoint'] } : {}),
        ...(options['s3-path-style'] ? { pathStyle: true } : {}),
      },
      log: (line) => process.stderr.write(`gbatch ui: ${printable(line)}\n`),
    }),
  );
});
