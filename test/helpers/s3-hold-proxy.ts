// An HTTP proxy in front of an S3-compatible server that can hold one kind of request unanswered: a run
// is then stopped at an exact point of an upload (a part on its way, the completion, the metadata copy)
// and killed there, with no timing involved. It can also refuse a kind of request as S3 would.
import { EventEmitter, once } from 'node:events';
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A part of a multipart upload, its completion, a server-side copy, or a video put whole in one request. */
export type HeldStep = 'part' | 'complete' | 'copy' | 'whole-video';

function stepOf(req: IncomingMessage): HeldStep | undefined {
  const url = req.url ?? '';
  if (req.method === 'PUT' && /[?&]partNumber=/.test(url)) return 'part';
  if (req.method === 'POST' && /[?&]uploadId=/.test(url)) return 'complete';
  if (req.method === 'PUT' && req.headers['x-amz-copy-source'] !== undefined) return 'copy';
  if (req.method === 'PUT' && req.headers['content-type'] === 'video/mp4') return 'whole-video';
  return undefined;
}

/** An S3 error answer, as S3 sends it. */
function refuse(res: ServerResponse, status: number, code: string): void {
  const body = `<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>refused by the test</Message></Error>`;
  res.writeHead(status, { 'content-type': 'application/xml', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

export interface HoldProxy {
  endpoint: string;
  /** The next request of `step` is held (never forwarded) until release(); resolves when one arrives. */
  holdNext(step: HeldStep): Promise<void>;
  /** Every request of `step` from now on is answered with this S3 error. */
  refuseAll(step: HeldStep, status: number, code: string): void;
  /** Drops every held request. */
  release(): void;
  close(): Promise<void>;
}

export async function startHoldProxy(target: string): Promise<HoldProxy> {
  const upstream = new URL(target);
  const events = new EventEmitter();
  let holding: HeldStep | undefined;
  let refusing: { step: HeldStep; status: number; code: string } | undefined;
  const held: ServerResponse[] = [];
  const server = createServer((req, res) => {
    const step = stepOf(req);
    if (step !== undefined && step === refusing?.step) {
      req.resume();
      return refuse(res, refusing.status, refusing.code);
    }
    if (step !== undefined && step === holding) {
      holding = undefined;
      held.push(res);
      events.emit('held');
      return;
    }
    const forwarded = request(
      { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forwarded.on('error', () => res.destroy());
    req.pipe(forwarded);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const release = (): void => {
    for (const res of held.splice(0)) res.destroy();
  };
  return {
    endpoint: `http://127.0.0.1:${port}`,
    holdNext: (step) => {
      holding = step;
      return once(events, 'held').then(() => undefined);
    },
    refuseAll: (step, status, code) => {
      refusing = { step, status, code };
    },
    release,
    close: async () => {
      release();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
