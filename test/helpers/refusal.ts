// What a refusal looks like from outside (exit 2, one line, no stack), and the hostile gateway a test
// file starts and closes with itself.
import { expect, onTestFinished } from 'vitest';
import { startHostileGateway, type HostileGateway } from './hostile-gateway.js';
import type { CliResult } from './cli.js';

/** Exit 2 and exactly one line on stderr, matching `line`, with no stack and no bug report. */
export function refusedWith(result: CliResult, line: RegExp): void {
  expect(result.code, result.stderr).toBe(2);
  const lines = result.stderr.split('\n').filter((l) => l.trim() !== '');
  expect(lines, result.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(line);
  expect(result.stderr).not.toMatch(/internal error|Please report|\n\s+at /);
}

/** A hostile gateway closed when the test ends. */
export async function hostileGateway(options: Parameters<typeof startHostileGateway>[0] = {}): Promise<HostileGateway> {
  const gw = await startHostileGateway(options);
  onTestFinished(() => gw.close());
  return gw;
}
