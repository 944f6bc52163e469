// Download (issue 4): 200 videos of 20 MB each. gbatch's download phase (a `run` that finds every task
// done) vs curl fetching the same files with the same parallelism, in the same run. Peak RSS of gbatch.
// gbatch makes each file durable (fsync) before it journals it as downloaded; curl leaves its files in
// the page cache. So curl is timed twice over: to its exit (raw), and to its exit plus an fsync of the
// files it wrote (`sync FILE...`, durable, what gbatch guarantees). A `dd ... conv=fdatasync` of the
// same 4 GB gives the disk's own durable write rate as a ceiling for both.
// Usage: npm run build && node bench/download.mjs [--videos N] [--mb N] [--rounds N]
import { execFileSync, spawn } from 'node:child_process';
import { join } from 'node:path';
import { mkdirSync, rmSync, statSync } from 'node:fs';
import Database from 'better-sqlite3';
import { videoJsonl } from './lib/manifests.mjs';
import {
  flag,
  machine,
  median,
  removeDir,
  report,
  requireBuild,
  runGbatch,
  startSim,
  tempDir,
} from './lib/harness.mjs';

const PARALLEL = 4;

async function run(command, args) {
  const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'inherit'] });
  const code = await new Promise((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`${command} exited ${code}`);
}

/** Milliseconds to curl's exit, and to the moment its files are on disk. */
async function curlAll(urls, dir, key) {
  mkdirSync(dir, { recursive: true });
  const files = urls.map((_, i) => join(dir, `${i}.mp4`));
  const args = [
    '--silent',
    '--show-error',
    '--no-progress-meter',
    '--fail',
    '--parallel',
    '--parallel-max',
    String(PARALLEL),
    '-H',
    `Authorization: Bearer ${key}`,
  ];
  urls.forEach((url, i) => args.push('-o', files[i], url));
  const started = performance.now();
  await run('curl', args);
  const exited = performance.now() - started;
  await run('sync', files);
  return { raw: exited, durable: performance.now() - started };
}

/** The disk's durable sequential write rate for `bytes`: one dd with fdatasync. */
async function diskRate(dir, bytes) {
  const file = join(dir, 'dd.bin');
  const started = performance.now();
  await run('dd', [
    'if=/dev/zero',
    `of=${file}`,
    'bs=1M',
    `count=${Math.round(bytes / 1048576)}`,
    'conv=fdatasync',
    'status=none',
  ]);
  const ms = performance.now() - started;
  rmSync(file, { force: true });
  return bytes / (ms / 1000);
}

export async function download({ videos = 200, mb = 20, rounds = 3 } = {}) {
  requireBuild();
  const bytes = mb * 1024 * 1024;
  const dir = tempDir('download');
  const sim = await startSim([
    '--task-seconds',
    '0.5',
    '--video-bytes',
    String(bytes),
    '--api-key',
    'sk-bench=1000000',
  ]);
  const env = { GATEWAY_BASE_URL: sim.baseUrl, GATEWAY_API_KEY: 'sk-bench' };
  const rates = { gbatch: [], curl: [], curlDurable: [], disk: [] };
  const rss = [];
  try {
    const manifest = await videoJsonl(join(dir, 'v.jsonl'), videos);
    for (let round = 0; round < rounds; round++) {
      const state = join(dir, `d${round}.db`);
      const out = join(dir, `out${round}`);
      const submit = await runGbatch(
        ['run', manifest, '--state', state, '--out', out, '--no-wait', '--concurrency', '32', '--quiet', '--json'],
        { env },
      );
      if (submit.code !== 75) throw new Error(`submit exited ${submit.code}: ${submit.stderr.slice(-400)}`);
      await new Promise((resolve) => setTimeout(resolve, 1000)); // every task is done after 0.5 s
      const db = new Database(state, { readonly: true });
      const urls = db
        .prepare('SELECT task_id FROM items ORDER BY seq')
        .all()
        .map((r) => `${sim.baseUrl}/videos/${r.task_id}/content`);
      db.close();
      const total = videos * bytes;
      const timeGbatch = async () => {
        const fetch = await runGbatch(
          [
            'run',
            manifest,
            '--state',
            state,
            '--out',
            out,
            '--poll-interval',
            '0.01',
            '--download-concurrency',
            String(PARALLEL),
            '--quiet',
            '--json',
          ],
          { env },
        );
        if (fetch.code !== 0) throw new Error(`download run exited ${fetch.code}: ${fetch.stderr.slice(-400)}`);
        if (statSync(join(out, 'video-0.mp4')).size !== bytes) throw new Error('gbatch wrote a file of the wrong size');
        rates.gbatch.push(total / (fetch.wallMs / 1000));
        rss.push(fetch.maxRssKb);
        rmSync(out, { recursive: true, force: true });
      };
      const timeCurl = async () => {
        const curlDir = join(dir, `curl${round}`);
        const curlMs = await curlAll(urls, curlDir, 'sk-bench');
        rates.curl.push(total / (curlMs.raw / 1000));
        rates.curlDurable.push(total / (curlMs.durable / 1000));
        rmSync(curlDir, { recursive: true, force: true });
      };
      // Each side starts with no dirty pages left by the other (the kernel's writeback of 4 GB would
      // otherwise run during the next side's timing), and the order alternates between rounds.
      for (const side of round % 2 === 0 ? [timeGbatch, timeCurl] : [timeCurl, timeGbatch]) {
        execFileSync('sync');
        await side();
      }
      execFileSync('sync');
      rates.disk.push(await diskRate(dir, total));
    }
  } finally {
    await sim.stop();
    removeDir(dir);
  }
  const gbatch = median(rates.gbatch);
  const curl = median(rates.curl);
  const curlDurable = median(rates.curlDurable);
  const mbps = (r) => Math.round(r / 1024 / 1024);
  return {
    benchmark: 'download',
    machine: machine(),
    videos,
    mb_each: mb,
    parallel: PARALLEL,
    rounds,
    gbatch_mb_per_s: mbps(gbatch),
    curl_durable_mb_per_s: mbps(curlDurable),
    gbatch_over_curl_durable: gbatch / curlDurable,
    curl_raw_mb_per_s: mbps(curl),
    gbatch_over_curl_raw: gbatch / curl,
    disk_durable_mb_per_s: mbps(median(rates.disk)),
    gbatch_over_disk: gbatch / median(rates.disk),
    peak_rss_mb: Math.round(median(rss) / 1024),
    runs_mb_per_s: {
      gbatch: rates.gbatch.map(mbps),
      curl_durable: rates.curlDurable.map(mbps),
      curl_raw: rates.curl.map(mbps),
      disk: rates.disk.map(mbps),
    },
    note: 'gbatch figures include process start, one poll per task, journal writes and an fsync per file. curl_durable adds an fsync of its files after curl exits (what gbatch guarantees); curl_raw stops the clock with the files still in the page cache',
    targets: { gbatch_over_curl_durable: 0.9, peak_rss_mb: 250 },
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  report(
    await download({
      videos: Number(flag('videos', 200)),
      mb: Number(flag('mb', 20)),
      rounds: Number(flag('rounds', 3)),
    }),
  );
}
