// Pure: why the dashboard offers no retry now. A retry while a run is live on the job is refused, as
// `gbatch retry` refuses it (exit 73): the run's lanes would not see the rows come back. The run's own
// --retry-failed still sends again what it covers.
export function retryWaits(liveRunners: number): string | undefined {
  if (liveRunners === 0) return undefined;
  return `a run is live on this job (${liveRunners} runner(s)): retry waits until it ends, as \`gbatch retry\` does; the run still sends again what its --retry-failed covers`;
}
