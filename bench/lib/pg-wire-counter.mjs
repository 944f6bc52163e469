// A counting proxy between gbatch and the PostgreSQL server, on loopback: what the job's own sessions
// cost, whatever else the server runs meanwhile. It reads the wire protocol's frames as they pass:
// round trips are the server's ReadyForQuery messages (one per simple query, one per Sync of the
// extended protocol), statements its CommandComplete messages (a multi-statement simple query counts
// each), and each session's backend pid comes from its BackendKeyData. The CPU of a session is its
// backend's time on a CPU since its fork (/proc/<pid>/schedstat, nanoseconds), read as the client closes
// and before the proxy lets the server see it go: nothing of the backend's work is missed, and no other
// session of the server (another job, the benchmark's own look, autovacuum) is counted.
// Only what passes through it is counted: the background processes the job's writes keep busy (the WAL
// writer, the checkpointer, autovacuum) are not.
import { readFileSync } from 'node:fs';
import net from 'node:net';

/** Listens on a loopback port forwarding to `target` (`postgres://` URL); `url(u)` rewrites a URL to go through it. */
export async function startPgWireCounter(target) {
  const { hostname, port } = new URL(target);
  const totals = { sessions: 0, roundTrips: 0, statements: 0, queries: 0, executes: 0, backendCpuNs: 0, peakOpen: 0 };
  const open = new Set();
  /** Statements run, by their text's start: a Bind of a parsed statement, or a simple query. */
  const byText = new Map();
  const tally = (text) => {
    const key = text.replace(/\s+/g, ' ').trim().slice(0, 72);
    byText.set(key, (byText.get(key) ?? 0) + 1);
  };
  const server = net.createServer((client) => {
    const session = { pid: null, cpuCounted: false, parsed: new Map() };
    open.add(session);
    totals.sessions++;
    totals.peakOpen = Math.max(totals.peakOpen, open.size);
    const upstream = net.connect(Number(port || 5432), hostname || '127.0.0.1');
    const fromServer = frames(false, (type, body) => {
      if (type === 0x5a)
        totals.roundTrips++; // 'Z' ReadyForQuery
      else if (type === 0x43)
        totals.statements++; // 'C' CommandComplete
      else if (type === 0x4b && body.length >= 4) session.pid = body.readInt32BE(0); // 'K' BackendKeyData
    });
    const closeSession = () => {
      if (session.cpuCounted) return;
      session.cpuCounted = true;
      totals.backendCpuNs += backendCpuNs(session.pid);
      open.delete(session);
    };
    const fromClient = frames(true, (type, body) => {
      if (type === 0x50) {
        // 'P' Parse: statement name, then its text
        const [name, text] = cStrings(body, 2);
        session.parsed.set(name, text);
      } else if (type === 0x42) {
        // 'B' Bind: portal name, then the statement's
        const [, name] = cStrings(body, 2);
        tally(session.parsed.get(name) ?? '(unknown statement)');
      } else if (type === 0x51) {
        totals.queries++; // 'Q' simple query
        tally(cStrings(body, 1)[0]);
      }
      if (type === 0x45)
        totals.executes++; // 'E' Execute
      // A Terminate ('X') is the session's last word: its backend's CPU is read before the server sees it.
      else if (type === 0x58) closeSession();
    });
    client.on('data', (chunk) => {
      fromClient(chunk);
      upstream.write(chunk);
    });
    upstream.on('data', (chunk) => {
      fromServer(chunk);
      client.write(chunk);
    });
    client.on('close', () => {
      closeSession();
      upstream.end();
    });
    upstream.on('close', () => client.destroy());
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const listening = server.address().port;
  return {
    /** `url` with its host and port replaced by the proxy's. */
    url(url) {
      const u = new URL(url);
      u.hostname = '127.0.0.1';
      u.port = String(listening);
      return u.toString();
    },
    /** The counts so far; the CPU of sessions still open read now. */
    totals() {
      let openCpuNs = 0;
      for (const session of open) openCpuNs += backendCpuNs(session.pid);
      return { ...totals, backendCpuNs: totals.backendCpuNs + openCpuNs, openSessions: open.size };
    },
    /** The `n` statements run most, with their counts; the tally starts again. */
    takeTopStatements(n) {
      const top = [...byText].sort((a, b) => b[1] - a[1]).slice(0, n);
      byText.clear();
      return top.map(([text, count]) => ({ text, count }));
    },
    async stop() {
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** The first `n` NUL-terminated strings of a frame's body. */
function cStrings(body, n) {
  const strings = [];
  let at = 0;
  for (let i = 0; i < n; i++) {
    const end = body.indexOf(0, at);
    if (end < 0) break;
    strings.push(body.toString('utf8', at, end));
    at = end + 1;
  }
  return strings;
}

/** Time on a CPU of backend `pid` since its fork (ns); 0 when unknown or gone. */
function backendCpuNs(pid) {
  if (pid === null) return 0;
  try {
    return Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]);
  } catch {
    return 0;
  }
}

/**
 * A parser of one direction's frames (type byte, int32 length including itself, body), calling `onFrame(type, body)`.
 * `startup`: the first frame has no type byte (the client's StartupMessage).
 */
function frames(startup, onFrame) {
  let buffer = Buffer.alloc(0);
  let untyped = startup;
  return (chunk) => {
    buffer = buffer.length === 0 ? chunk : Buffer.concat([buffer, chunk]);
    for (;;) {
      const head = untyped ? 4 : 5;
      if (buffer.length < head) return;
      const length = buffer.readInt32BE(untyped ? 0 : 1);
      const total = (untyped ? 0 : 1) + length;
      if (buffer.length < total) return;
      if (!untyped) onFrame(buffer[0], buffer.subarray(5, total));
      untyped = false;
      buffer = buffer.subarray(total);
    }
  };
}
