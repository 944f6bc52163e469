// Who signed in through the form: a session per sign-in, kept in this process only (a restart signs
// everyone out), its id in an HttpOnly, SameSite=Strict cookie, with its own form token.
import { randomBytes } from 'node:crypto';

export const SESSION_COOKIE = 'gbatch_ui_session';
export const SESSION_MS = 12 * 3600 * 1000;
const MAX_SESSIONS = 10_000;

export interface Session {
  who: string;
  csrf: string;
  expiresAt: number;
}

export class Sessions {
  private readonly live = new Map<string, Session>();

  constructor(private readonly now: () => number) {}

  open(who: string): { id: string; session: Session } {
    this.sweep();
    const id = randomBytes(32).toString('base64url');
    const session = { who, csrf: randomBytes(24).toString('base64url'), expiresAt: this.now() + SESSION_MS };
    this.live.set(id, session);
    return { id, session };
  }

  find(id: string | undefined): Session | undefined {
    if (!id) return undefined;
    const session = this.live.get(id);
    if (session && session.expiresAt <= this.now()) {
      this.live.delete(id);
      return undefined;
    }
    return session;
  }

  close(id: string | undefined): void {
    if (id) this.live.delete(id);
  }

  private sweep(): void {
    const now = this.now();
    for (const [id, session] of this.live) if (session.expiresAt <= now) this.live.delete(id);
    // Bounded: a flood of sign-ins drops the oldest sessions, never the process's memory.
    while (this.live.size >= MAX_SESSIONS) this.live.delete(this.live.keys().next().value!);
  }
}
