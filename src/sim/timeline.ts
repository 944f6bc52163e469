// Where a video task stands, derived from elapsed time alone (no timer per task), so a manual clock
// can move every task forward. With T the task duration: [0, 0.1T) NOT_START, [0.1T, 0.25T) QUEUED,
// [0.25T, T) IN_PROGRESS with rising progress, >= T done (SUCCESS or FAILURE, decided at submission).

export type Phase = 'NOT_START' | 'QUEUED' | 'IN_PROGRESS' | 'DONE';

export interface PhaseAt {
  phase: Phase;
  progress: number;
}

export function phaseAt(elapsedMs: number, durationMs: number): PhaseAt {
  if (elapsedMs >= durationMs) return { phase: 'DONE', progress: 100 };
  if (elapsedMs < 0.1 * durationMs) return { phase: 'NOT_START', progress: 0 };
  const runningFrom = 0.25 * durationMs;
  if (elapsedMs < runningFrom) return { phase: 'QUEUED', progress: 0 };
  const share = (elapsedMs - runningFrom) / (durationMs - runningFrom);
  return { phase: 'IN_PROGRESS', progress: Math.min(99, 1 + Math.floor(98 * share)) };
}
