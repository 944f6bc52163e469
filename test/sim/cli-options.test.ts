// `gbatch sim` flags: parsed from strings by a pure function, and documented in src/sim/README.md.

import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { UsageError } from '../../src/job/options.js';
import { parseApiKey, SIM_OPTIONS, simOptionsFromArgs } from '../../src/sim/cli-options.js';

describe('simOptionsFromArgs', () => {
  test('defaults: the contract simulator table', () => {
    expect(simOptionsFromArgs([])).toEqual({
      help: false,
      options: {
        port: 8080,
        host: '127.0.0.1',
        accounts: [{ key: 'sk-sim-demo', balanceUsd: 100 }],
        taskSeconds: 8,
        seed: 1,
        shape: 'a',
        groupRatio: 1,
        tokenNoise: 0,
        faults: {
          latencyMs: 0,
          latencyJitterMs: 0,
          errorRate: 0,
          errorFlavor: 'envelope',
          acceptThenDropRate: 0,
          truncateDownloadRate: 0,
          failRate: 0,
          finalResolutionRate: 0,
        },
      },
    });
  });

  test('every flag lands in its option', () => {
    const parsed = simOptionsFromArgs([
      '--port',
      '0',
      '--api-key',
      'sk-a=12.5',
      '--api-key',
      'sk-b',
      '--task-seconds',
      '0.5',
      '--latency-ms',
      '20',
      '--latency-jitter-ms',
      '5',
      '--error-rate',
      '0.1',
      '--error-flavor',
      'mixed',
      '--rate-limit',
      '30',
      '--fail-rate',
      '0.2',
      '--shape',
      'b',
      '--seed',
      '7',
      '--token-noise',
      '0.3',
      '--accept-then-drop-rate',
      '0.05',
      '--truncate-rate',
      '0.04',
      '--final-resolution',
      '1080p',
      '--final-resolution-rate',
      '0.5',
      '--video-bytes',
      '100000',
      '--group-ratio',
      '1.2',
      '--host',
      '127.0.0.2',
      '--admin',
      '--state',
      'rehearsal/sim-state.json',
    ]);
    expect(parsed).toEqual({
      help: false,
      options: {
        port: 0,
        host: '127.0.0.2',
        accounts: [
          { key: 'sk-a', balanceUsd: 12.5, rateLimitPerMinute: 30 },
          { key: 'sk-b', balanceUsd: 100, rateLimitPerMinute: 30 },
        ],
        taskSeconds: 0.5,
        seed: 7,
        shape: 'b',
        groupRatio: 1.2,
        tokenNoise: 0.3,
        videoBytes: 100000,
        admin: true,
        stateFile: 'rehearsal/sim-state.json',
        faults: {
          latencyMs: 20,
          latencyJitterMs: 5,
          errorRate: 0.1,
          errorFlavor: 'mixed',
          acceptThenDropRate: 0.05,
          truncateDownloadRate: 0.04,
          failRate: 0.2,
          finalResolutionRate: 0.5,
          finalResolution: '1080p',
        },
      },
    });
  });

  test.each([
    [['--error-rate', '1.5'], /--error-rate.*from 0 to 1.*1\.5/],
    [['--port', '70000'], /--port/],
    [['--shape', 'c'], /--shape.*a, b/],
    [['--rate-limit', '0'], /--rate-limit/],
    [['--final-resolution', '8k'], /--final-resolution/],
    [['--api-key', 'sk-x=lots'], /balance.*lots/],
    [['--api-key', 'sk-x', '--api-key', 'sk-x=3'], /same key/],
    [['--bogus'], /bogus/],
    [['extra'], /no arguments/],
  ])('%o is a usage error', (argv, message) => {
    expect(() => simOptionsFromArgs(argv)).toThrow(UsageError);
    expect(() => simOptionsFromArgs(argv)).toThrow(message);
  });

  test('a bad --api-key never echoes the key', () => {
    const err = (() => {
      try {
        parseApiKey('sk-secret-123=abc', 0);
      } catch (e) {
        return e as Error;
      }
      return undefined;
    })();
    expect(err?.message).toMatch(/abc/);
    expect(err?.message).not.toContain('sk-secret-123');
  });

  test('--help', () => {
    expect(simOptionsFromArgs(['--help'])).toEqual({ help: true });
  });
});

test('src/sim/README.md documents every flag', () => {
  const readme = readFileSync(new URL('../../src/sim/README.md', import.meta.url), 'utf8');
  for (const flag of Object.keys(SIM_OPTIONS).filter((f) => f !== 'help')) {
    expect(readme, `--${flag} is missing from the README table`).toMatch(new RegExp(`^\\| \`--${flag}[ \`]`, 'm'));
  }
});
