// Pure: how many live streams (a job page's server-sent events) the dashboard holds open. Each one is a
// connection and a place in its job's fan-out: a client that opens them without end would hold the
// server's sockets and memory, so one sign-in (a session or a bearer token) has a few, the server a bound.

/** Streams one session or bearer token may hold open at once: a handful of tabs. */
export const LIVE_STREAMS_PER_VIEWER = 8;
/** Streams the server holds open at once, whoever holds them. */
export const LIVE_STREAMS_IN_ALL = 256;

export interface LiveStreamCaps {
  perViewer: number;
  inAll: number;
}

export const LIVE_STREAM_CAPS: LiveStreamCaps = { perViewer: LIVE_STREAMS_PER_VIEWER, inAll: LIVE_STREAMS_IN_ALL };

/**
 * Why one more stream is refused, or undefined when it may open. `mine`: the streams the viewer holds,
 * undefined for a dashboard without sign-in (no one to count them against but the server).
 */
export function liveStreamRefusal(
  open: { mine: number | undefined; all: number },
  caps: LiveStreamCaps,
): string | undefined {
  if (open.all >= caps.inAll)
    return `too many live streams: this server holds ${caps.inAll} at once; close a job page or try again later`;
  if (open.mine !== undefined && open.mine >= caps.perViewer)
    return `too many live streams: one sign-in holds ${caps.perViewer} at once; close a job page first`;
  return undefined;
}
