// Who is looking at a page: a token's name (a digest prefix, never the token), how they signed in, their
// form token against cross-site requests, and whether this server lets them act.
export interface Viewer {
  who: string;
  /** 'signed-out': not signed in on a server that asks for a token (the sign-in page); never acts. */
  via: 'bearer' | 'session' | 'none' | 'signed-out';
  /** The value every form of theirs carries back (checked on each POST but a bearer's). */
  csrf: string;
  canAct: boolean;
}
