// `gbatch ui`: a dashboard of every job in the journal, until SIGINT or SIGTERM.
import { EXIT_CODES } from '../../core/command-exit-codes.js';
import { printable } from '../../core/printable.js';
import { parseOptions, UsageError } from '../../job/options.js';
import { UI_OPTIONS } from '../../ui/options.js';
import { startUi } from '../../ui/server.js';
import { allowedHosts } from '../allowed-hosts.js';
import { refuseShortToken } from '../short-token.js';
import { readUiTokens } from '../../ui/ui-tokens.js';
import { helpText } from '../help-text.js';

const ABOUT = `
Serves a dashboard of every job: those of a PostgreSQL journal (--journal, or GBATCH_JOURNAL_URL), else one
per SQLite journal in --state-dir (state/). Jobs, a job's figures (the report's, live while it runs), its
runners, problems and rows. Users sign in with a token among GBATCH_UI_TOKENS (comma-separated) or the file
GBATCH_UI_TOKENS_FILE, in the form or as a bearer token. Read-only unless --allow-actions: then cancel,
retry and resolve, each confirmed and recorded in the journal's event log with the user's token name.`;

export async function run(argv: string[]): Promise<number> {
  const { options, positionals } = parseOptions(UI_OPTIONS, argv);
  if (options.help) {
    process.stdout.write(`${helpText('ui', '[options]', UI_OPTIONS, EXIT_CODES.ui)}\n${ABOUT}\n`);
    return 0;
  }
  if (positionals.length > 0) throw new UsageError(`gbatch ui takes no arguments, got ${positionals.join(' ')}`);
  const tokens = readUiTokens(process.env);
  refuseShortToken(
    tokens.map((t) => t.token),
    'GBATCH_UI_TOKENS',
  );
  if (tokens.length === 0 && !options['no-auth'])
    throw new UsageError(
      'No sign-in tokens: set GBATCH_UI_TOKENS (comma-separated) or GBATCH_UI_TOKENS_FILE, or pass --no-auth (loopback only)',
    );
  let ui;
  try {
    ui = await startUi({
      host: options.host,
      port: options.port,
      source: options.journal ?? process.env.GBATCH_JOURNAL_URL ?? options['state-dir'],
      sourceFlag:
        options.journal !== undefined
          ? '--journal'
          : process.env.GBATCH_JOURNAL_URL !== undefined
            ? 'GBATCH_JOURNAL_URL'
            : '--state-dir',
      tokens: tokens.length > 0 ? tokens : undefined,
      allowActions: options['allow-actions'] === true,
      allowedHosts: allowedHosts(options['allowed-host']),
      refreshMs: Math.round(options['refresh-interval'] * 1000),
      env: process.env,
      log: (line) => process.stderr.write(`gbatch ui: ${printable(line)}\n`),
    });
  } catch (err) {
    if (err instanceof UsageError) throw err;
    const e = err as NodeJS.ErrnoException;
    const reason = e.code === 'EADDRINUSE' ? `port ${options.port} is already in use (try --port 0)` : e.message;
    process.stderr.write(`gbatch ui: cannot start: ${printable(reason)}\n`);
    return 1;
  }
  process.stdout.write(`gbatch ui listening on ${ui.url}\n`);
  const signal = await new Promise<string>((resolve) => {
    process.once('SIGINT', () => resolve('SIGINT'));
    process.once('SIGTERM', () => resolve('SIGTERM'));
  });
  process.stderr.write(`gbatch ui: ${signal}: stopping\n`);
  await ui.close();
  return 0;
}
