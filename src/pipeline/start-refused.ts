// A run its caller turned away at the gate (RunConfig.startGate): it had joined the job as a runner, so
// the caller's check is ordered after that join, and it had changed no row. Not a failure of the run.
export class StartRefused extends Error {
  constructor(readonly reason: string) {
    super(`the run did not start: ${reason}`);
    this.name = 'StartRefused';
  }
}
