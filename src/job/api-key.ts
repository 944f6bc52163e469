// The API key comes only from the environment: GATEWAY_API_KEY, or the file GATEWAY_API_KEY_FILE names
// (a key kept in a file, a secret store's mount, or systemd's $CREDENTIALS_DIRECTORY), so it never
// sits in shell history, `ps` output or a unit file.
import { ConfigError } from '../core/config-error.js';
import { readBoundedText } from '../io/bounded-read.js';
import { UsageError } from './options.js';

const MAX_KEY_FILE_BYTES = 16 * 1024;

export function apiKeyFromEnv(env: NodeJS.ProcessEnv): string {
  const file = env.GATEWAY_API_KEY_FILE;
  if (file) {
    if (env.GATEWAY_API_KEY) throw new UsageError('Both GATEWAY_API_KEY and GATEWAY_API_KEY_FILE are set: keep one');
    let text: string;
    try {
      text = readBoundedText(file, 'API key file', MAX_KEY_FILE_BYTES);
    } catch (err) {
      throw new UsageError(
        err instanceof ConfigError ? err.message : `${file}: cannot read the API key file: ${(err as Error).message}`,
      );
    }
    // One line; the newline an editor or `echo` leaves is not part of the key.
    const key = text.replace(/\r?\n$/, '');
    if (key === '' || /[\r\n]/.test(key))
      throw new UsageError(`${file}: expected the API key on one line (GATEWAY_API_KEY_FILE)`);
    return key;
  }
  const key = env.GATEWAY_API_KEY;
  if (!key)
    throw new UsageError('No API key: set GATEWAY_API_KEY or GATEWAY_API_KEY_FILE (it is never accepted as a flag)');
  return key;
}
