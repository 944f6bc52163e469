// What every request of the dashboard shares.
import type { JobDirectory } from './job-directory.js';
import type { Flashes } from './flashes.js';
import type { LiveFeeds } from './live-feeds.js';
import type { ObjectOutputs } from './object-outputs.js';
import type { Sessions } from './sessions.js';

export interface UiContext {
  directory: JobDirectory;
  /** The name of a presented token, or undefined when it is none; undefined itself: no sign-in (--no-auth). */
  tokenName: ((token: string) => string | undefined) | undefined;
  sessions: Sessions;
  flashes: Flashes;
  /** The form token of a server without sign-in (a cross-site page cannot read it). */
  anonymousCsrf: string;
  allowActions: boolean;
  /** The address it listens on and the other names it answers to (--allowed-host): src/core/host-names.ts. */
  listenHost: string;
  allowedHosts: readonly string[];
  /** Each job's live figures, read once per --refresh-interval for all the streams that watch it. */
  live: LiveFeeds;
  /** The stores of rows' s3:// outputs, read with the dashboard's own credentials. */
  outputs: ObjectOutputs;
  now(): number;
  log(line: string): void;
}
