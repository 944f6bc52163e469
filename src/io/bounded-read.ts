// Small configuration files (pricing, job files) read whole, but only when they are regular files of a
// bounded size: `--pricing /dev/zero` or a FIFO would otherwise be read forever.
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { ConfigError, describeErrno } from '../core/config-error.js';

export const MAX_CONFIG_FILE_BYTES = 16 * 1024 * 1024;

export function readBoundedText(path: string, what: string, maxBytes = MAX_CONFIG_FILE_BYTES): string {
  let fd: number;
  try {
    // O_NONBLOCK: opening a FIFO must not wait for a writer before we can refuse it.
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (err) {
    throw new ConfigError(`${path}: cannot read ${what}: ${describeErrno(err)}`, { cause: err });
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) throw new ConfigError(`${path}: cannot read ${what}: not a regular file`);
    if (stats.size > maxBytes)
      throw new ConfigError(`${path}: cannot read ${what}: larger than ${maxBytes} bytes (${stats.size})`);
    const buffer = Buffer.alloc(stats.size + 1);
    let length = 0;
    for (;;) {
      const n = readSync(fd, buffer, length, buffer.length - length, null);
      if (n === 0) break;
      length += n;
      if (length > stats.size) throw new ConfigError(`${path}: cannot read ${what}: it grew while it was read`);
    }
    return buffer.subarray(0, length).toString('utf8');
  } catch (err) {
    if (err instanceof ConfigError) throw err;
    throw new ConfigError(`${path}: cannot read ${what}: ${describeErrno(err)}`, { cause: err });
  } finally {
    closeSync(fd);
  }
}
