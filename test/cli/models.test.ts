// `gbatch models` as a user runs it: against the simulator on loopback (its /v1/models for the key), with
// a pricing file of one's own, and with no gateway, or one that cannot be reached or refuses the key.
import { writeFileSync } from 'node:fs';
import { describe, expect, it, onTestFinished } from 'vitest';
import { BUILT, gatewayEnv, runCli, stdoutJson } from '../helpers/cli.js';
import { KEY, startSim } from '../helpers/sim.js';
import { workspace } from '../helpers/workspace.js';
import { closedPort, json as answer, startServer } from '../helpers/test-server.js';

const PRICING = {
  video: { 'video-mini': { '480p': { ref: 1, noref: 2 }, '1080p': { ref: 1, noref: 2 } } },
  chat: {
    'chat-small': { input_per_1m: 0.1, output_per_1m: 0.2 },
    'chat-retired': { input_per_1m: 1, output_per_1m: 2 },
  },
};

describe.skipIf(!BUILT)('gbatch models', () => {
  it("lists the pricing file's models beside the gateway's, with each video model's resolutions and durations", async () => {
    const ws = workspace();
    const pricing = ws.path('pricing.json');
    writeFileSync(pricing, JSON.stringify(PRICING));
    const sim = await startSim({
      accounts: [{ key: KEY, balanceUsd: 10, models: ['video-mini', 'chat-small', 'video-pro'] }],
    });
    const env = gatewayEnv(sim.baseUrl, KEY);

    const [json, text] = await Promise.all([
      runCli(['models', '--pricing', pricing, '--json'], { env }),
      runCli(['models', '--pricing', pricing], { env }),
    ]);
    expect(json.code).toBe(0);
    expect(stdoutJson(json)).toEqual({
      pricing,
      gateway: { status: 'listed', url: sim.baseUrl, models: 3 },
      models: [
        {
          id: 'video-mini',
          kind: 'video',
          priced: true,
          on_gateway: true,
          resolutions: ['480p', '1080p'],
          durations: { min_s: 0, max_s: 3600, default_s: 5 },
        },
        { id: 'chat-retired', kind: 'chat', priced: true, on_gateway: false, resolutions: [], durations: null },
        { id: 'chat-small', kind: 'chat', priced: true, on_gateway: true, resolutions: [], durations: null },
        { id: 'video-pro', kind: 'unpriced', priced: false, on_gateway: true, resolutions: [], durations: null },
      ],
    });

    expect(text.code).toBe(0);
    expect(text.stdout).toContain(`Gateway ${sim.baseUrl}: 3 model(s) listed for this key.`);
    expect(text.stdout).toMatch(/^video-mini +video +yes +yes +480p, 1080p +0-3600 s \(default 5 s\)$/m);
    expect(text.stdout).toMatch(/^video-pro +unpriced +no +yes *$/m);
    expect(text.stdout).toContain('1 model(s) the gateway lists have no price in this pricing table');
    expect(text.stdout).toContain('1 priced model(s) the gateway does not list for this key');
    expect(text.stdout).not.toContain(KEY);
  });

  it("without a gateway: the pricing table's models, the gateway not asked, exit 0", async () => {
    const result = await runCli(['models']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Gateway not asked: no gateway configured (GATEWAY_BASE_URL or --base-url)');
    expect(result.stdout).toMatch(/^video-pro +video +yes +\? +480p, 720p, 1080p, 4k +0-3600 s/m);
  });

  it('a gateway that cannot be reached, or refuses the key: the pricing table still listed, why said, exit 1', async () => {
    const port = await closedPort();
    const sim = await startSim();
    const [down, refused, noKey] = await Promise.all([
      runCli(['models', '--base-url', `http://127.0.0.1:${port}/v1`, '--json'], { env: { GATEWAY_API_KEY: KEY } }),
      runCli(['models'], { env: gatewayEnv(sim.baseUrl, 'sk-wrong-key-1234') }),
      runCli(['models', '--base-url', sim.baseUrl]),
    ]);
    expect(down.code).toBe(1);
    const answer = stdoutJson(down);
    expect(answer.gateway).toMatchObject({ status: 'not-reached', url: `http://127.0.0.1:${port}/v1` });
    expect(answer.gateway.reason).toContain('ECONNREFUSED');
    expect(answer.models).toHaveLength(6);

    expect(refused.code).toBe(1);
    expect(refused.stdout).toMatch(/^Gateway http:\S+ not reached: 401 /m);
    expect(refused.stdout).not.toContain('sk-wrong-key-1234');

    expect(noKey.code).toBe(1);
    expect(noKey.stdout).toContain('not reached: No API key: set GATEWAY_API_KEY or GATEWAY_API_KEY_FILE');
  });

  it("a gateway's model ids are text from outside: shown with control characters escaped, and capped", async () => {
    const long = `video-${'x'.repeat(500)}`;
    const gateway = await startServer((_req, res) =>
      answer(res, 200, { object: 'list', data: [{ id: 'chat-small' }, { id: 'evil\u001b[2Jmodel' }, { id: long }] }),
    );
    onTestFinished(() => gateway.close());
    const result = await runCli(['models'], { env: gatewayEnv(gateway.baseUrl, KEY) });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).not.toContain('\u001b');
    expect(result.stdout).toMatch(/^evil\\x1b\[2Jmodel +unpriced /m);
    expect(result.stdout).toContain(`video-${'x'.repeat(194)}… `);
    expect(result.stdout).not.toContain('x'.repeat(195));
  });

  it('a gateway URL that is not one: exit 2 and one line saying so', async () => {
    const result = await runCli(['models', '--base-url', 'ftp://gateway.example.com/v1'], {
      env: { GATEWAY_API_KEY: KEY },
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      'gbatch models: Expected the gateway base URL to be an http(s) URL, got `ftp://gateway.example.com/v1`\n',
    );
  });

  it('a bad pricing file: exit 2 and one line naming the file and field', async () => {
    const ws = workspace();
    const pricing = ws.path('pricing.json');
    writeFileSync(pricing, JSON.stringify({ chat: { 'chat-small': { input_per_1m: -1, output_per_1m: 1 } } }));
    const result = await runCli(['models', '--pricing', pricing]);
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain(`${pricing}: pricing field chat.chat-small.input_per_1m`);
  });
});
