// `gbatch ui` in headless Chromium: sign in by the form, the jobs list, a job's page while a real run of
// it is live (its figures move without a reload), the row browser's filters, and an action confirmed and
// done; a wrong token sees nothing. No page may log an error (a script the Content-Security-Policy blocks
// would). GBATCH_UI_SCREENSHOTS=DIR keeps the pictures the README shows.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, describe, expect, test } from 'vitest';
import { openQueries } from '../../../src/journal/index.js';
import { BUILT, gatewayEnv, runCli, startCli } from '../../helpers/cli.js';
import { statesById } from '../../helpers/journal-read.js';
import { chatRow, videoRow, writeJsonl } from '../../helpers/manifests.js';
import { KEY, launchSim } from '../../helpers/sim.js';
import { workspace } from '../../helpers/workspace.js';
import { startUiChild, UI_TOKEN } from '../../helpers/ui.js';

const CHROMIUM = '/usr/bin/chromium';
const HAVE_CHROMIUM = existsSync(CHROMIUM);
if (!HAVE_CHROMIUM && process.env.CI !== 'true')
  console.warn(
    `\n*** ui.browser.test.ts SKIPPED: ${CHROMIUM} is missing (apt-get install chromium); under CI=true this fails ***\n`,
  );

const VIDEOS = 8;
const TASK_SECONDS = 60;

describe.skipIf(!BUILT || (!HAVE_CHROMIUM && process.env.CI !== 'true'))('gbatch ui in Chromium', () => {
  let launched: Promise<Browser> | undefined;
  const launchBrowser = (): Promise<Browser> => {
    expect(existsSync(CHROMIUM), `${CHROMIUM} is required under CI`).toBe(true);
    launched ??= chromium.launch({
      executablePath: CHROMIUM,
      args: ['--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync'],
    });
    return launched;
  };
  afterAll(async () => (await launched)?.close());

  test('sign in, watch a live job, filter its rows, retry another job from the page', async () => {
    const browser = await launchBrowser();
    const ws = workspace('gbatch-ui-browser-');
    const shots = process.env.GBATCH_UI_SCREENSHOTS ?? ws.path('shots');
    mkdirSync(shots, { recursive: true });
    // The simulator's clock stands still: the video tasks stay in progress until the test moves it.
    let simNow = Date.now();
    const sim = await launchSim({
      accounts: [{ key: KEY, balanceUsd: 100, models: ['chat-small', 'video-mini'] }],
      taskSeconds: TASK_SECONDS,
      faults: { failRate: 0 },
      clock: { now: () => simNow },
    });
    const env = gatewayEnv(sim.baseUrl, KEY);
    // An earlier job whose tasks failed upstream: the page retries them.
    sim.faults.failRate = 1;
    writeJsonl(ws.path('lastnight.jsonl'), [
      videoRow('old-0', 'rain 0'),
      videoRow('old-1', 'rain 1'),
      chatRow('q', 'a question'),
    ]);
    simNow += 1;
    const lastnight = startCli(
      ['run', 'lastnight.jsonl', '--budget', '3', '--poll-interval', '0.05', '--retry-failed', '0', '--quiet'],
      { cwd: ws.dir, env },
    );
    await sim.ledger.reached((l) => l.requests.filter((r) => r.method === 'POST').length >= 3);
    simNow += (TASK_SECONDS + 1) * 1000;
    expect((await lastnight.result).code).toBe(1);
    sim.faults.failRate = 0;

    writeJsonl(ws.path('campaign.jsonl'), [
      ...Array.from({ length: VIDEOS }, (_, i) => videoRow(`clip-${i}`, `a harbour at dawn, take ${i}`)),
      ...Array.from({ length: 4 }, (_, i) => chatRow(`caption-${i}`, `a caption ${i}`)),
    ]);
    const run = startCli(['run', 'campaign.jsonl', '--budget', '5', '--poll-interval', '0.05', '--quiet'], {
      cwd: ws.dir,
      env,
    });
    const ui = await startUiChild(['--state-dir', ws.path('state'), '--allow-actions', '--refresh-interval', '0.1']);
    try {
      // Every video task is accepted and in progress: the run is live and holds them.
      await sim.ledger.reached((l) => l.requests.filter((r) => r.method === 'POST').length >= 3 + VIDEOS + 4);
      const tab = await browser.newPage({ viewport: { width: 1200, height: 1000 } });
      const errors: string[] = [];
      tab.on('console', (m) => {
        if (m.type() === 'error') errors.push(m.text());
      });
      tab.on('pageerror', (e) => errors.push(e.message));

      // A wrong token: the sign-in page again, and no job named anywhere.
      await tab.goto(ui.url);
      expect(new URL(tab.url()).pathname).toBe('/login');
      await tab.fill('input[name=token]', 'tok-not-ours');
      await tab.click('button[type=submit]');
      await expect.poll(() => tab.textContent('body')).toContain("That token is not one of this dashboard's.");
      expect(await tab.content()).not.toContain('campaign');

      await tab.fill('input[name=token]', UI_TOKEN);
      await tab.click('button[type=submit]');
      await tab.waitForSelector('table.jobs');
      // The refused sign-in was answered 401, which the browser logs: from here on, nothing may be.
      errors.length = 0;
      expect(await standing(tab, 'campaign')).toBe('running');
      expect(await standing(tab, 'lastnight')).toBe('finished');
      await tab.screenshot({ path: join(shots, 'ui-jobs.png') });

      await tab.click('a[href="/jobs/campaign"]');
      await tab.waitForSelector('#live-headline');
      const done = tab.locator('#live-headline [data-path=\'["totals","by_state","downloaded"]\']');
      // The captions may be answered (or written) by now; no video can be: its task is still in progress.
      expect(Number(await done.textContent())).toBeLessThanOrEqual(4);
      await tab.evaluate(() => ((globalThis as unknown as { stillHere: boolean }).stillHere = true));
      // The tasks finish upstream: the run polls, downloads and settles them; the page follows, unreloaded.
      simNow += (TASK_SECONDS + 1) * 1000;
      await expect.poll(() => done.textContent(), { timeout: 30_000 }).toBe(String(VIDEOS + 4));
      expect(await tab.evaluate(() => (globalThis as unknown as { stillHere?: boolean }).stillHere)).toBe(true);
      expect(Number(await tab.getAttribute('body', 'data-live-updates'))).toBeGreaterThan(0);
      expect((await run.result).code).toBe(0);
      await expect.poll(() => tab.textContent('#live-standing'), { timeout: 30_000 }).toContain('finished');
      await tab.screenshot({ path: join(shots, 'ui-job.png'), fullPage: true });

      // The rows: filter by kind, then by id.
      await tab.click('a[href="/jobs/campaign/rows"]');
      await tab.selectOption('select[name=kind]', 'chat');
      await tab.click('form.filters button[type=submit]');
      await tab.waitForURL(/kind=chat/);
      expect(await ids(tab)).toEqual(['caption-0', 'caption-1', 'caption-2', 'caption-3']);
      await tab.fill('input[name=id]', 'clip-');
      await tab.selectOption('select[name=kind]', '');
      await tab.click('form.filters button[type=submit]');
      await tab.waitForURL(/id=clip-/);
      expect(await ids(tab)).toEqual(Array.from({ length: VIDEOS }, (_, i) => `clip-${i}`));
      await tab.screenshot({ path: join(shots, 'ui-rows.png') });

      // An action: confirmed on its own page, done, said, and in the journal with who did it.
      await tab.goto(new URL('/jobs/lastnight', ui.url).href);
      await tab.click('a[href="/jobs/lastnight/confirm/retry-failed"]');
      await tab.waitForSelector('form.confirm');
      expect(statesById(ws.path('state', 'lastnight.db'))).toMatchObject({ 'old-0': 'failed', 'old-1': 'failed' });
      await tab.click('form.confirm button[type=submit]');
      await tab.waitForSelector('.flash');
      expect(await tab.textContent('.flash')).toContain('2 row(s) pending again');
      expect(statesById(ws.path('state', 'lastnight.db'))).toMatchObject({ 'old-0': 'pending', 'old-1': 'pending' });
      const journal = await openQueries(ws.path('state', 'lastnight.db'), { job: 'lastnight' });
      try {
        expect((await journal.events('old-1')).at(-1)).toMatchObject({ event: 'requeue', detail: { via: 'ui' } });
      } finally {
        await journal.close();
      }
      // The page agrees with the CLI.
      const status = await runCli(['status', '--state', ws.path('state', 'lastnight.db'), '--json']);
      expect(JSON.parse(status.stdout).counts).toMatchObject({ pending: 2, downloaded: 1 });
      expect(errors).toEqual([]);

      // Without JavaScript everything but the live figures works: sign-in, sorting, filters.
      const plain = await browser.newContext({ javaScriptEnabled: false });
      const bare = await plain.newPage();
      await bare.goto(ui.url);
      await bare.fill('input[name=token]', UI_TOKEN);
      await bare.click('button[type=submit]');
      await bare.waitForSelector('table.jobs');
      await bare.click('th a:text("job")');
      await bare.waitForURL(/sort=name/);
      expect(await bare.$$eval('tr[data-job]', (rows) => rows.map((r) => r.getAttribute('data-job')))).toEqual([
        'campaign',
        'lastnight',
      ]);
      await bare.goto(new URL('/jobs/lastnight/rows', ui.url).href);
      await bare.selectOption('select[name=state]', 'pending');
      await bare.click('form.filters button[type=submit]');
      await bare.waitForURL(/state=pending/);
      expect(await ids(bare)).toEqual(['old-0', 'old-1']);
      await plain.close();
    } finally {
      run.child.kill('SIGKILL');
      await ui.stop();
      await sim.close();
    }
  }, 120_000);

  test('a job whose name holds a control character (a job file named "night\\x07shift") updates live', async () => {
    const browser = await launchBrowser();
    const ws = workspace('gbatch-ui-browser-');
    let simNow = Date.now();
    const sim = await launchSim({
      accounts: [{ key: KEY, balanceUsd: 100, models: ['video-mini'] }],
      taskSeconds: TASK_SECONDS,
      faults: { failRate: 0 },
      clock: { now: () => simNow },
    });
    const name = 'night\u0007shift';
    writeJsonl(ws.path('night.jsonl'), [videoRow('v-0', 'a quay at night'), videoRow('v-1', 'lanterns')]);
    // A job file without a `name`: the job is named by the file, control character and all.
    writeFileSync(ws.path(`${name}.json`), JSON.stringify({ manifest: 'night.jsonl', options: { budget: 3 } }));
    const run = startCli(['run', `${name}.json`, '--poll-interval', '0.05', '--quiet'], {
      cwd: ws.dir,
      env: gatewayEnv(sim.baseUrl, KEY),
    });
    // Both tasks accepted and in progress: the journal is there, the run live.
    await sim.ledger.reached((l) => l.requests.filter((r) => r.method === 'POST').length >= 2);
    const ui = await startUiChild(['--state-dir', ws.path('state'), '--refresh-interval', '0.1']);
    try {
      const tab = await browser.newPage();
      const errors: string[] = [];
      tab.on('console', (m) => {
        if (m.type() === 'error') errors.push(m.text());
      });
      tab.on('pageerror', (e) => errors.push(e.message));
      await tab.goto(ui.url);
      await tab.fill('input[name=token]', UI_TOKEN);
      await tab.click('button[type=submit]');
      await tab.click(`a[href="/jobs/${encodeURIComponent(name)}"]`);
      await tab.waitForSelector('#live-headline');
      const done = tab.locator('#live-headline [data-path=\'["totals","by_state","downloaded"]\']');
      expect(await done.textContent()).toBe('0');
      // The tasks finish upstream: the run downloads them, and the page follows without a reload.
      simNow += (TASK_SECONDS + 1) * 1000;
      await expect.poll(() => done.textContent(), { timeout: 30_000 }).toBe('2');
      expect(Number(await tab.getAttribute('body', 'data-live-updates'))).toBeGreaterThan(0);
      expect((await run.result).code).toBe(0);
      expect(errors).toEqual([]);
    } finally {
      run.child.kill('SIGKILL');
      await ui.stop();
      await sim.close();
    }
  }, 90_000);
});

async function standing(tab: Page, job: string): Promise<string | null> {
  return tab.getAttribute(`tr[data-job="${job}"] [data-field=standing]`, 'data-kind');
}

async function ids(tab: Page): Promise<string[]> {
  return tab.$$eval('table.rows tbody tr[data-id]', (rows) => rows.map((r) => r.getAttribute('data-id')!));
}
