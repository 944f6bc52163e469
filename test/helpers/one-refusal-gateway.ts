// A chat gateway for several runners that answers one request (the Nth to arrive) with an error of the
// test's choice and every other one, after 100 ms, as the hostile gateway's honest default: the test
// sees when each request arrived and when the refusal went out.
import { onTestFinished } from 'vitest';
import { DEFAULTS, sendJson, startHostileGateway, type HostileGateway } from './hostile-gateway.js';

export interface Refusal {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

export interface OneRefusalGateway {
  gateway: HostileGateway;
  /** performance.now() of every request's arrival, in order. */
  arrivals: number[];
  /** performance.now() when the refusal was sent; 0 until then. */
  refusedAt(): number;
}

/** Started for the current test and closed when it finishes. */
export async function startOneRefusalGateway(refuseAt: number, refusal: Refusal): Promise<OneRefusalGateway> {
  const arrivals: number[] = [];
  let refusedAt = 0;
  const gateway = await startHostileGateway({
    routes: {
      chat: async (req, res, gw) => {
        arrivals.push(performance.now());
        if (arrivals.length === refuseAt) {
          refusedAt = performance.now();
          return sendJson(res, refusal.status, refusal.body, refusal.headers);
        }
        await new Promise((resolve) => setTimeout(resolve, 100)); // answers take a while: requests stay in flight
        return DEFAULTS.chat(req, res, gw);
      },
    },
  });
  onTestFinished(() => gateway.close());
  return { gateway, arrivals, refusedAt: () => refusedAt };
}
