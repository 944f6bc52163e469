// Callers in one process take turns at a named piece of exclusive work before any of them asks the server.
// A caller waiting on the server holds a session of the process's pool; were every local caller to wait
// there, they could hold all of its sessions while the holder's work waits for one: no progress, ever.
// Taking turns here first, at most one session per name per pool waits on the server.

export class LocalTurns {
  private readonly tails = new Map<string, Promise<void>>();

  /** Runs `work` once every earlier caller of `name` here has finished (or failed), in the order they came. */
  async take<T>(name: string, work: () => Promise<T>): Promise<T> {
    const before = this.tails.get(name);
    let finished!: () => void;
    const mine = new Promise<void>((resolve) => {
      finished = resolve;
    });
    const tail = before ? before.then(() => mine) : mine;
    this.tails.set(name, tail);
    try {
      await before;
      return await work();
    } finally {
      finished();
      if (this.tails.get(name) === tail) this.tails.delete(name);
    }
  }
}
