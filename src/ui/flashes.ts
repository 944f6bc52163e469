// What an action did, kept for the page the browser is sent to next: the page shows a message of this
// server's only (a link cannot make it say anything), once, for a minute at most.
import { randomBytes } from 'node:crypto';

const FLASH_MS = 60_000;
const MAX_FLASHES = 1000;

export interface Flash {
  text: string;
  bad?: boolean;
}

export class Flashes {
  private readonly kept = new Map<string, Flash & { until: number }>();

  constructor(private readonly now: () => number) {}

  keep(flash: Flash): string {
    const now = this.now();
    for (const [id, held] of this.kept) if (held.until <= now || this.kept.size >= MAX_FLASHES) this.kept.delete(id);
    const id = randomBytes(12).toString('base64url');
    this.kept.set(id, { ...flash, until: now + FLASH_MS });
    return id;
  }

  take(id: string | undefined): Flash | undefined {
    if (!id) return undefined;
    const held = this.kept.get(id);
    this.kept.delete(id);
    return held && held.until > this.now() ? { text: held.text, ...(held.bad ? { bad: true } : {}) } : undefined;
  }
}
