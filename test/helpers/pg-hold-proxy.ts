// A loopback proxy in front of PostgreSQL that holds chosen statements: once armed, a session whose client sends a
// statement matching the test's pattern (a simple query, or a Parse and every later Bind of that statement) has
// everything it sends from that message on held back until release(). The server is never touched; the client
// simply sees a slow answer. Only what the client sends is read (the frontend protocol's framing), never changed.
import type { Socket } from 'node:net';
import { startTcpProxy } from './tcp-proxy.js';

export interface PgHoldProxy {
  port: number;
  /** From now on, a matching statement holds its session. */
  arm(): void;
  /** Sends everything held and holds nothing more. */
  release(): void;
  /** Resolves once a statement has been held. */
  holding(): Promise<void>;
  /** Statements held so far. */
  held(): number;
  close(): Promise<void>;
}

const SSL_REQUEST = 80877103;
const GSS_REQUEST = 80877104;

/** The first NUL-terminated string of `body` from `offset`, and where the next field starts. */
function cstring(body: Buffer, offset: number): [string, number] {
  const end = body.indexOf(0, offset);
  return [body.toString('utf8', offset, end), end + 1];
}

export async function startPgHoldProxy(
  targetHost: string,
  targetPort: number,
  matches: (sql: string) => boolean,
): Promise<PgHoldProxy> {
  const sessions = new Set<{ flush(): void }>();
  let armed = false;
  let released = false;
  let heldCount = 0;
  let onHeld: (() => void) | undefined;
  const firstHeld = new Promise<void>((resolve) => {
    onHeld = resolve;
  });

  /** One session's messages to the server, in order, each sent on or held back. */
  const forward = (client: Socket, upstream: Socket): void => {
    let pending = Buffer.alloc(0);
    let untyped = true; // the startup messages carry no type byte
    let holding = false;
    const heldBack: Buffer[] = [];
    const heldNames = new Set<string>();
    const session = {
      flush() {
        holding = false;
        for (const chunk of heldBack.splice(0)) upstream.write(chunk);
      },
    };
    sessions.add(session);
    client.on('close', () => sessions.delete(session));

    const isHeld = (type: string, body: Buffer): boolean => {
      if (!armed || released) return false;
      if (type === 'Q') return matches(cstring(body, 0)[0]);
      if (type === 'P') {
        const [name, next] = cstring(body, 0);
        if (!matches(cstring(body, next)[0])) return false;
        if (name !== '') heldNames.add(name);
        return true;
      }
      if (type === 'B') {
        const [, next] = cstring(body, 0);
        return heldNames.has(cstring(body, next)[0]);
      }
      return false;
    };

    client.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      for (;;) {
        if (untyped) {
          if (pending.length < 8) return;
          const length = pending.readInt32BE(0);
          if (pending.length < length) return;
          const code = pending.readInt32BE(4);
          untyped = code === SSL_REQUEST || code === GSS_REQUEST;
          upstream.write(pending.subarray(0, length));
          pending = pending.subarray(length);
          continue;
        }
        if (pending.length < 5) return;
        const length = pending.readInt32BE(1);
        if (pending.length < length + 1) return;
        const message = pending.subarray(0, length + 1);
        pending = pending.subarray(length + 1);
        if (!holding && isHeld(String.fromCharCode(message[0]!), message.subarray(5))) {
          holding = true;
          heldCount++;
          onHeld?.();
        }
        if (holding) heldBack.push(Buffer.from(message));
        else upstream.write(message);
      }
    });
  };

  const proxy = await startTcpProxy(targetHost, targetPort, { forward });
  return {
    port: proxy.port,
    arm() {
      armed = true;
    },
    release() {
      released = true;
      for (const session of sessions) session.flush();
    },
    holding: () => firstHeld,
    held: () => heldCount,
    close: () => proxy.close(),
  };
}
