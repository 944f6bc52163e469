// A throwaway PostgreSQL cluster of the benchmark's own: initdb into /dev/shm, started on a free loopback
// port with as many connections as asked, stopped and deleted at the end. Its settings are the server's
// defaults but for max_connections (and the memory that needs): a hundred runners' sessions fit, and
// nothing the tests' server runs meanwhile is counted or disturbed. Running as root, the server's tools
// run as the `postgres` user (runuser), which owns the data directory.
import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';

/** The directory of initdb and pg_ctl: PG_BIN, else the newest /usr/lib/postgresql/<v>/bin, else PATH. */
function binDir() {
  if (process.env.PG_BIN) return process.env.PG_BIN;
  const base = '/usr/lib/postgresql';
  const versions = existsSync(base) ? readdirSync(base).filter((v) => /^\d+$/.test(v)) : [];
  versions.sort((a, b) => Number(b) - Number(a));
  return versions.length ? join(base, versions[0], 'bin') : '';
}

async function freePort() {
  const server = net.createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * Starts the cluster; `url` is its `postgres` database as the `postgres` user (trust), `stop()` removes it.
 * `settings`: more `-c name=value` server settings.
 */
export async function startPrivateCluster({ maxConnections = 1000, settings: more = [] } = {}) {
  const bin = binDir();
  const tool = (name) => (bin ? join(bin, name) : name);
  const asOwner = process.getuid?.() === 0 ? ['runuser', '-u', 'postgres', '--'] : [];
  const run = (name, args) => {
    const [command, ...rest] = [...asOwner, tool(name), ...args];
    execFileSync(command, rest, { stdio: ['ignore', 'ignore', 'pipe'] });
  };
  const dir = mkdtempSync('/dev/shm/gbatch-bench-pg-');
  if (asOwner.length) {
    const ids = execFileSync('id', ['-u', 'postgres']).toString().trim();
    const gid = execFileSync('id', ['-g', 'postgres']).toString().trim();
    chownSync(dir, Number(ids), Number(gid));
  }
  const data = join(dir, 'data');
  const port = await freePort();
  run('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8', '--locale=C']);
  const settings = [
    `-p ${port}`,
    `-c listen_addresses=127.0.0.1`,
    `-c unix_socket_directories=${dir}`,
    `-c max_connections=${maxConnections}`,
    // A backend's lock table slots scale with max_connections; shared memory does the rest.
    `-c shared_buffers=256MB`,
    ...more.map((setting) => `-c ${setting}`),
  ].join(' ');
  run('pg_ctl', ['-D', data, '-o', settings, '-l', join(dir, 'log'), '-w', '-t', '60', 'start']);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    async stop() {
      try {
        run('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
