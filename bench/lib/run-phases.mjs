// Where a run's time goes, from the simulator's ledger: the run's chat requests are those that arrived
// between its spawn and its exit (runs happen one after another on one simulator).

/** Arrival times (epoch ms) of every chat request in the ledger, in arrival order. */
export function chatPosts(ledger) {
  return ledger.requests.filter((r) => r.method === 'POST' && r.path === '/v1/chat/completions').map((r) => r.at);
}

/**
 * For a run of `rows` rows ({ startedAtMs, endedAtMs }): spawn to the first request, requests/s from the
 * 20th to the 80th percentile of its requests, and its last request to the (last) process's exit.
 */
export function runPhases(run, posts, rows) {
  const mine = posts.filter((at) => at >= run.startedAtMs && at <= run.endedAtMs);
  if (mine.length !== rows) throw new Error(`expected ${rows} chat requests in the run's window, saw ${mine.length}`);
  const [from, to] = [Math.floor(0.2 * rows), Math.floor(0.8 * rows)];
  return {
    firstRequestS: (mine[0] - run.startedAtMs) / 1000,
    steadyRps: (to - from) / ((mine[to] - mine[from]) / 1000),
    tailS: (run.endedAtMs - mine[mine.length - 1]) / 1000,
  };
}
