// A real webhook receiver on loopback: answers each POST from a script (500, 200, or never), keeps
// every body it got, and closes when the test ends.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { onTestFinished } from 'vitest';

export type Answer = number | 'hang';

export interface Hook {
  url: string;
  /** Every POST's parsed body, in arrival order, with the answer it got. */
  received: Array<{ body: any; answer: Answer; at: number }>;
}

/** `script[i]` answers the i-th POST; after the script, `then`. The path carries a token, as Slack's does. */
export async function startHook(script: Answer[], then: Answer = 200): Promise<Hook> {
  const received: Hook['received'] = [];
  const hanging: ServerResponse[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let text = '';
    req
      .setEncoding('utf8')
      .on('data', (d: string) => {
        text += d;
      })
      .on('end', () => {
        const answer = script[received.length] ?? then;
        let body: unknown;
        try {
          body = JSON.parse(text);
        } catch {
          body = text;
        }
        received.push({ body, answer, at: Date.now() });
        if (answer === 'hang') {
          hanging.push(res);
          return;
        }
        res
          .writeHead(answer, { 'content-type': 'text/plain', ...(answer === 429 ? { 'retry-after': '1' } : {}) })
          .end(answer === 200 ? 'ok' : 'no');
      });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onTestFinished(async () => {
    for (const res of hanging) res.destroy();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/services/T000/B000/hook-secret-token`, received };
}
