// `gbatch ui` on a 1,000,000-row SQLite journal (issue 23): the jobs list, the job's page, the row browser under
// each filter, a row's page and /metrics, each timed from the request to the last byte, over HTTP on loopback,
// against a target of 200 ms. The peer, measured in the same run: the dashboard's stylesheet from the same server
// (no journal read: the floor of any request there). The journal is bench/lib/million-journal.mjs's (chat and video
// rows, ~3M events, mixed states, settled money), read where it is cached.
// Usage: npm run build && node bench/ui-dashboard.mjs [--rows 1000000] [--rounds 9]
import { spawn } from 'node:child_process';
import { basename, join } from 'node:path';
import { flag, machine, median, report, requireBuild, root } from './lib/harness.mjs';
import { millionJournal } from './lib/million-journal.mjs';

const TARGET_MS = 200;

async function startUi(journal) {
  const child = spawn(
    process.execPath,
    [join(root, 'bin/gbatch.js'), 'ui', '--journal', journal, '--no-auth', '--port', '0'],
    { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, GBATCH_METRICS_DEAR_READ_MS: '3600000' } },
  );
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const url = await new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const match = /listening on (\S+)/.exec(out);
      if (match) resolve(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`gbatch ui exited ${code}: ${stderr}`)));
  });
  return { url, stop: () => new Promise((resolve) => (child.once('exit', resolve), child.kill('SIGTERM'))) };
}

async function timedGet(url) {
  const started = performance.now();
  const res = await fetch(url);
  const body = await res.text();
  if (res.status !== 200) throw new Error(`GET ${url}: ${res.status} ${body.slice(0, 200)}`);
  return { ms: performance.now() - started, bytes: Buffer.byteLength(body) };
}

export async function uiDashboard({ rows = Number(flag('rows', 1_000_000)), rounds = Number(flag('rounds', 9)) } = {}) {
  requireBuild();
  const journal = await millionJournal({ rows });
  const job = encodeURIComponent(basename(journal, '.db'));
  const ui = await startUi(journal);
  const pages = {
    'peer: GET /assets/ui.css': 'assets/ui.css',
    'jobs list': '',
    'job page': `jobs/${job}`,
    'rows (no filter)': `jobs/${job}/rows`,
    'rows state=uncertain': `jobs/${job}/rows?state=uncertain`,
    'rows model=video-pro': `jobs/${job}/rows?model=video-pro`,
    'rows code=content_policy (rare)': `jobs/${job}/rows?code=content_policy`,
    'rows id starts row-99999': `jobs/${job}/rows?id=row-99999`,
    'rows state=downloaded, page after row 500000': `jobs/${job}/rows?state=downloaded&after=500000`,
    'a row and its history': `jobs/${job}/rows/row-500000`,
    '/metrics': 'metrics',
  };
  const results = {};
  try {
    for (const [name, path] of Object.entries(pages)) {
      await timedGet(`${ui.url}${path}`); // the first read of a page warms SQLite's cache
      const times = [];
      let bytes = 0;
      for (let i = 0; i < rounds; i++) {
        const got = await timedGet(`${ui.url}${path}`);
        times.push(got.ms);
        bytes = got.bytes;
      }
      results[name] = {
        median_ms: Math.round(median(times) * 10) / 10,
        max_ms: Math.round(Math.max(...times) * 10) / 10,
        bytes,
        within_target: name.startsWith('peer') ? undefined : median(times) < TARGET_MS,
      };
    }
  } finally {
    await ui.stop();
  }
  return report({ benchmark: 'ui-dashboard', rows, rounds, target_ms: TARGET_MS, results, machine: machine() });
}

if (import.meta.url === `file://${process.argv[1]}`) await uiDashboard();
