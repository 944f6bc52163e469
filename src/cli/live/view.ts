// What every progress view of `run` is and writes to: live, plain or JSON.
import { printable } from '../../core/printable.js';

export interface ProgressView {
  /** The run is over: the last frame stays (the summary prints below it), or nothing is left if nothing was drawn. */
  finish(): void;
}

interface Writable {
  write(chunk: string): unknown;
  columns?: number;
  rows?: number;
  isTTY?: boolean;
  on?(event: 'resize', listener: () => void): unknown;
}
export type ProgressStream = Writable & NodeJS.WritableStream;

/** A line of the run's log as every view shows it. */
export function logLine(line: string): string {
  return `[gbatch] ${printable(line)}`;
}
