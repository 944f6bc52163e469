// The commands gbatch suggests (in status, reports, notifications, a run's last lines), found in its text
// and run as printed: through `sh -c`, in the operator's directory, with the operator's environment.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { BIN } from './cli.js';

const sh = promisify(execFile);

/**
 * The `gbatch ...` commands a text suggests, each as printed (up to two spaces, a closing backquote, a `; ` ending
 * the clause, or the end of a JSON string).
 */
export function suggested(text: string): string[] {
  return [
    ...text.matchAll(
      /gbatch ((?:status|report|resolve|retry|cancel|plan|run|forget) [^`\n]*?)(?=\s{2,}|`|$|\s\(|;\s|",?$)/gm,
    ),
  ].map((m) => `gbatch ${m[1]!.trim()}`);
}

/** Runs a suggested command as printed, `gbatch` being this repository's CLI; its exit code and output. */
export async function runAsPrinted(
  command: string,
  cwd: string,
  env: Record<string, string>,
): Promise<{ code: number; out: string }> {
  try {
    const { stdout, stderr } = await sh('sh', ['-c', command.replace(/^gbatch /, `${process.execPath} ${BIN} `)], {
      cwd,
      env: { ...process.env, ...env },
    });
    return { code: 0, out: stdout + stderr };
  } catch (err) {
    const failed = err as { code: number; stdout: string; stderr: string };
    return { code: failed.code, out: failed.stdout + failed.stderr };
  }
}
