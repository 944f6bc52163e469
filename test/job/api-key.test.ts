// GATEWAY_API_KEY_FILE: the key read from a file (a secret store's mount, systemd's credentials).
import { writeFileSync } from 'node:fs';
import { expect, test } from 'vitest';
import { apiKeyFromEnv } from '../../src/job/api-key.js';
import { UsageError } from '../../src/job/options.js';
import { workspace } from '../helpers/workspace.js';

test('the key file gives the key, its final newline dropped', () => {
  const ws = workspace();
  writeFileSync(ws.path('key'), 'sk-from-file-123\n');
  expect(apiKeyFromEnv({ GATEWAY_API_KEY_FILE: ws.path('key') })).toBe('sk-from-file-123');
  expect(apiKeyFromEnv({ GATEWAY_API_KEY: 'sk-env' })).toBe('sk-env');
});

test('a missing, empty or multi-line file, or both variables set, is a usage error that never prints the key', () => {
  const ws = workspace();
  writeFileSync(ws.path('empty'), '\n');
  writeFileSync(ws.path('two'), 'sk-secret-one\nsk-secret-two\n');
  writeFileSync(ws.path('key'), 'sk-secret-one\n');
  const cases = [
    { GATEWAY_API_KEY_FILE: ws.path('missing') },
    { GATEWAY_API_KEY_FILE: ws.path('empty') },
    { GATEWAY_API_KEY_FILE: ws.path('two') },
    { GATEWAY_API_KEY_FILE: ws.path('key'), GATEWAY_API_KEY: 'sk-secret-env' },
    {},
  ];
  for (const env of cases) {
    let error: unknown;
    try {
      apiKeyFromEnv(env);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).not.toMatch(/sk-secret/);
  }
});
