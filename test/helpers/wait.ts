import { watch } from 'node:fs';

/**
 * Resolves once `holds()` is true: checked now and at each change the kernel reports in `dir` (inotify),
 * for what only a file announces (results.jsonl growing, a file appearing). An abort stops the watch and
 * leaves the promise pending.
 */
export function fileChange(dir: string, holds: () => boolean, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const watcher = watch(dir, { signal }, () => check());
    const check = (): void => {
      if (!holds()) return;
      watcher.close();
      resolve();
    };
    watcher.on('error', (err) => (err.name === 'AbortError' ? undefined : reject(err)));
    check();
  });
}
