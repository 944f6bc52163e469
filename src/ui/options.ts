// `gbatch ui`'s flags: where it listens, which journal it shows, and whether it may change anything.
import { journalSelectionOptions } from '../job/journal-selection.js';
import { HELP_OPTION, type OptionTable } from '../job/options.js';
import { RUN_OPTIONS } from '../job/run-options.js';

export const UI_OPTIONS = {
  host: { type: 'string', default: '127.0.0.1', help: 'the address to listen on' },
  port: { type: 'number', default: 8091, min: 0, max: 65535, integer: true, help: 'the port (0: any free one)' },
  ...journalSelectionOptions('shown'),
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
  's3-endpoint': {
    ...RUN_OPTIONS['s3-endpoint'],
    help: "the S3-compatible server rows' s3:// outputs are read from, for their links (default: $AWS_ENDPOINT_URL, else AWS)",
  },
  's3-path-style': RUN_OPTIONS['s3-path-style'],
  help: HELP_OPTION,
} as const satisfies OptionTable;
