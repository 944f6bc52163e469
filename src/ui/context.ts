// What every request of the dashboard shares.
import type { JobDirectory } from './job-directory.js';
import type { Flashes } from './flashes.js';
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
  /** Between two live frames of a job page. */
  refreshMs: number;
  now(): number;
  log(line: string): void;
}
