// `gbatch ui`'s flags: where it listens, which journal it shows, and whether it may change anything.
import type { OptionTable } from '../job/options.js';

export const UI_OPTIONS = {
  host: { type: 'string', default: '127.0.0.1', help: 'the address to listen on' },
  port: { type: 'number', default: 8091, min: 0, max: 65535, integer: true, help: 'the port (0: any free one)' },
  journal: {
    type: 'string',
    help: 'a postgres:// URL (every job it holds; default: GBATCH_JOURNAL_URL) or one SQLite journal file',
  },
  'state-dir': {
    type: 'string',
    default: 'state',
    help: 'without --journal: the folder whose SQLite journals (*.db) are shown, one job each',
  },
  'allow-actions': {
    type: 'boolean',
    help: 'let signed-in users cancel jobs, retry failed or rejected rows and resolve uncertain ones (each confirmed)',
  },
  'no-auth': {
    type: 'boolean',
    help: 'no sign-in (listens on loopback only); otherwise GBATCH_UI_TOKENS or GBATCH_UI_TOKENS_FILE',
  },
  'allowed-host': {
    type: 'string',
    multiple: true,
    help: 'a name (or name:port) besides its own address that the server answers to, e.g. behind a proxy (repeatable)',
  },
  'refresh-interval': {
    type: 'number',
    default: 2,
    min: 0.05,
    max: 3600,
    help: 'seconds between the live figures a job page receives',
  },
  help: { type: 'boolean', short: 'h', help: 'show this help' },
} as const satisfies OptionTable;
