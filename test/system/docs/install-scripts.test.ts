// npm 11 warns about every dependency whose install script the project has not approved (allowScripts).
// The README says what the warning means for ours and how to approve them; package.json approves every
// package of the lockfile that has an install script, so a clone installs without the warning (and
// keeps working once npm blocks scripts that are not approved).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { ROOT } from '../../helpers/workspace.js';

const README = readFileSync(join(ROOT, 'README.md'), 'utf8').replace(/\s+/g, ' ');
const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  allowScripts?: Record<string, boolean>;
};
const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, { hasInstallScript?: boolean }>;
};

/** Packages the lockfile installs that run an install script, by name. */
const scripted = [
  ...new Set(
    Object.entries(lock.packages)
      .filter(([path, entry]) => path !== '' && entry.hasInstallScript)
      .map(([path]) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length)),
  ),
].sort();

test('package.json approves by name every package of the lockfile with an install script, and only those', () => {
  expect(scripted).toEqual(['better-sqlite3', 'esbuild']);
  expect(manifest.allowScripts).toEqual(Object.fromEntries(scripted.map((name) => [name, true])));
});

test("the README's install section says what npm's install-scripts warning means for each and how to approve them", () => {
  const install = README.slice(0, README.indexOf('## Using it'));
  expect(install).toContain('install scripts not yet covered by allowScripts');
  for (const name of scripted) expect(install).toContain(`\`${name}\``);
  expect(install).toMatch(
    /`better-sqlite3`'s `install` script fetches the prebuilt native binding .* \(or compiles it/,
  );
  expect(install).toMatch(/`esbuild`'s `postinstall` checks that the binary for this platform/);
  expect(install).toContain('`npm install-scripts approve better-sqlite3`');
  expect(install).toContain('`npm install-scripts ls`');
  expect(install).toContain('`npm install -g --allow-scripts=better-sqlite3 ./gbatch-0.1.0.tgz`');
});
