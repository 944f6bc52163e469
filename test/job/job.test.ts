import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveJob } from '../../src/job/job.js';
import type { RunFlags } from '../../src/job/run-options.js';
import { parseOptions, UsageError } from '../../src/job/options.js';
import { metaColumnList, RUN_OPTIONS } from '../../src/job/run-options.js';
import { BUILTIN_PRICING } from '../../src/core/pricing.js';
import { useTempDir } from '../helpers/journal-fixtures.js';

const tmp = useTempDir('gbatch-job-');
const NOW = new Date(Date.UTC(2026, 0, 15, 12, 0, 0));

const cli = (...argv: string[]): RunFlags => parseOptions(RUN_OPTIONS, argv).options;

function jobFile(content: unknown, name = 'nightly.json'): string {
  const dir = join(tmp.dir(), 'jobs');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, name);
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
}

function usageMessage(run: () => unknown): string {
  try {
    run();
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError);
    return (err as Error).message;
  }
  throw new Error('expected a UsageError');
}

describe('resolveJob', () => {
  it('--meta-columns is a job option too; the command line overrides it', () => {
    const file = jobFile({ manifest: 'rows.csv', options: { 'meta-columns': 'notes, owner' } });
    expect(metaColumnList(resolveJob(file, cli(), NOW).flags['meta-columns'])).toEqual(['notes', 'owner']);
    expect(metaColumnList(resolveJob(file, cli('--meta-columns', 'ticket'), NOW).flags['meta-columns'])).toEqual([
      'ticket',
    ]);
    expect(metaColumnList(undefined)).toEqual([]);
  });

  it('a bare manifest: name from the file, default state and out paths, built-in pricing, run defaults', () => {
    const job = resolveJob('data/my rows.csv', cli(), NOW);
    expect(job).toMatchObject({
      name: 'my_rows',
      source: 'data/my rows.csv',
      manifests: ['data/my rows.csv'],
      statePath: join('state', 'my_rows.db'),
      outDir: join('out', 'my_rows'),
      pricing: BUILTIN_PRICING,
      pricingSource: 'built-in (spec 8.2)',
    });
    expect(job.flags).toMatchObject({
      concurrency: 8,
      'poll-interval': 5,
      'poll-concurrency': 64,
      'download-concurrency': 4,
      'max-attempts': 8,
      'journal-sync': 'full',
    });
    expect(job.deadlineAt).toBeUndefined();
  });

  it('a job file with one manifest: resolved relative to the job file; name from the file name', () => {
    const file = jobFile({ manifest: '../data/rows.jsonl' });
    const job = resolveJob(file, cli(), NOW);
    expect(job.name).toBe('nightly');
    expect(job.source).toBe(file);
    expect(job.manifests).toEqual([join(tmp.dir(), 'data', 'rows.jsonl')]);
    expect(job.statePath).toBe(join('state', 'nightly.db'));
    expect(job.outDir).toBe(join('out', 'nightly'));
  });

  it('a job file with a manifest array and its own name', () => {
    const file = jobFile({ name: 'campaign-7', manifest: ['a.csv', 'sub/b.jsonl'] });
    const job = resolveJob(file, cli(), NOW);
    expect(job.name).toBe('campaign-7');
    expect(job.manifests).toEqual([join(tmp.dir(), 'jobs', 'a.csv'), join(tmp.dir(), 'jobs', 'sub', 'b.jsonl')]);
    expect(job.statePath).toBe(join('state', 'campaign-7.db'));
  });

  // Regression (fixed): src/job/job.ts resolveJob uses join(dirname(target), m), which glues an absolute manifest path
  // under the job's folder (jobs/ + /data/x.csv -> jobs/data/x.csv). Fix: isAbsolute(m) ? m : join(dirname(target), m)
  // (or path.resolve(dirname(target), m)).
  it('a job file may name a manifest by absolute path', () => {
    const absolute = join(tmp.dir(), 'elsewhere', 'rows.csv');
    const job = resolveJob(jobFile({ manifest: absolute }), cli(), NOW);
    expect(job.manifests).toEqual([absolute]);
  });

  it('job options apply under command-line flags, over the defaults', () => {
    const file = jobFile({
      manifest: 'a.csv',
      options: { budget: 5, concurrency: 3, 'no-wait': true, 'poll-interval': 0.5, out: 'results/x' },
    });
    const fromJob = resolveJob(file, cli(), NOW);
    expect(fromJob.flags).toMatchObject({ budget: 5, concurrency: 3, 'no-wait': true, 'poll-interval': 0.5 });
    // Paths in a job file are relative to the job file, as its manifests are; flags stay relative to the cwd.
    expect(fromJob.outDir).toBe(join(dirname(file), 'results/x'));

    const overridden = resolveJob(
      file,
      cli('--concurrency', '16', '--budget', '2', '--out', 'o2', '--state', 's/x.db'),
      NOW,
    );
    expect(overridden.flags).toMatchObject({ budget: 2, concurrency: 16, 'no-wait': true, 'poll-interval': 0.5 });
    expect(overridden.outDir).toBe('o2');
    expect(overridden.statePath).toBe('s/x.db');
  });

  it('an s3:// out in a job file is taken as it is, with the endpoint options', () => {
    const file = jobFile({
      manifest: 'a.csv',
      options: { out: 's3://media/night', 's3-endpoint': 'http://127.0.0.1:9000', 's3-path-style': true },
    });
    const job = resolveJob(file, cli(), NOW);
    expect(job.outDir).toBe('s3://media/night');
    expect(job.flags).toMatchObject({ 's3-endpoint': 'http://127.0.0.1:9000', 's3-path-style': true });
  });

  it("--no-budget on the command line lifts a job file's budget; --budget overrides its no-budget; both at once is refused", () => {
    const withBudget = jobFile({ manifest: 'a.csv', options: { budget: 5 } });
    const lifted = resolveJob(withBudget, cli('--no-budget'), NOW).flags;
    expect(lifted.budget).toBeUndefined();
    expect(lifted['no-budget']).toBe(true);
    const lifting = jobFile({ manifest: 'a.csv', options: { 'no-budget': true } }, 'lift.json');
    expect(resolveJob(lifting, cli('--budget', '3'), NOW).flags).toMatchObject({ budget: 3, 'no-budget': false });
    expect(usageMessage(() => resolveJob('a.csv', cli('--budget', '3', '--no-budget'), NOW))).toMatch(
      /--budget and --no-budget contradict/,
    );
    const both = jobFile({ manifest: 'a.csv', options: { budget: 1, 'no-budget': true } }, 'both.json');
    expect(usageMessage(() => resolveJob(both, cli(), NOW))).toMatch(
      /both\.json: job options 'budget' and 'no-budget' contradict/,
    );
  });

  it('a false boolean in the job file is simply off', () => {
    const job = resolveJob(jobFile({ manifest: 'a.csv', options: { 'no-wait': false } }), cli(), NOW);
    expect(job.flags['no-wait']).toBeFalsy();
  });

  it('an unknown job option is refused, naming the file and the option', () => {
    const file = jobFile({ manifest: 'a.csv', options: { bugdet: 5 } });
    const message = usageMessage(() => resolveJob(file, cli(), NOW));
    expect(message).toMatch(new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: unknown job option 'bugdet'`));
  });

  it.each(['state', 'json', 'help', 'quiet', 'progress'])(
    'the command-line-only option %j is refused in a job file',
    (option) => {
      const file = jobFile({
        manifest: 'a.csv',
        options: { [option]: option === 'state' ? 'x.db' : option === 'progress' ? 'plain' : true },
      });
      expect(usageMessage(() => resolveJob(file, cli(), NOW))).toContain(`unknown job option '${option}'`);
    },
  );

  it('a bad job option value says what was expected, as a job option of that file', () => {
    const file = jobFile({ manifest: 'a.csv', options: { concurrency: 0 } });
    expect(usageMessage(() => resolveJob(file, cli(), NOW))).toBe(
      `${file}: Expected job option 'concurrency' to be an integer from 1 to 10000, got \`0\``,
    );
    const choice = jobFile({ manifest: 'a.csv', options: { 'journal-sync': 'never' } }, 'b.json');
    expect(usageMessage(() => resolveJob(choice, cli(), NOW))).toBe(
      `${choice}: Expected job option 'journal-sync' to be one of full, off, got \`never\``,
    );
    const bool = jobFile({ manifest: 'a.csv', options: { 'no-wait': 'yes' } }, 'c.json');
    expect(usageMessage(() => resolveJob(bool, cli(), NOW))).toBe(
      `${bool}: job option 'no-wait' must be true or false, got "yes"`,
    );
  });

  // Regression (fixed): src/job/job.ts jobFileFlags builds argv as ['--budget', '-1']; node's parseArgs refuses a value
  // starting with '-' as "ambiguous" and the user sees "Option '--budget' argument is ambiguous ... use
  // '--budget=-XYZ'", advice about a command line they never typed. Fix: push `--${key}=${value}`.
  it('a negative number in a job file gets the same "Expected ..." message', () => {
    const file = jobFile({ manifest: 'a.csv', options: { budget: -1 } });
    expect(usageMessage(() => resolveJob(file, cli(), NOW))).toBe(
      `${file}: Expected job option 'budget' to be a number from 0 and up, got \`-1\``,
    );
  });

  it('an unreadable or malformed job file is a UsageError naming it', () => {
    const missing = join(tmp.dir(), 'jobs', 'missing.json');
    expect(usageMessage(() => resolveJob(missing, cli(), NOW))).toMatch(
      new RegExp(`^${missing.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: cannot read job file`),
    );
    const broken = jobFile('{"manifest": ', 'broken.json');
    expect(usageMessage(() => resolveJob(broken, cli(), NOW))).toContain(`${broken}: cannot read job file`);
    const noManifest = jobFile({ options: {} }, 'empty.json');
    expect(usageMessage(() => resolveJob(noManifest, cli(), NOW))).toMatch(/empty\.json: job field 'manifest'/);
    const extra = jobFile({ manifest: 'a.csv', budget: 5 }, 'extra.json');
    expect(usageMessage(() => resolveJob(extra, cli(), NOW))).toContain('extra.json: job field');
    const badName = jobFile({ name: '../escape', manifest: 'a.csv' }, 'name.json');
    expect(usageMessage(() => resolveJob(badName, cli(), NOW))).toContain("job field 'name'");
  });

  it('no target at all is a UsageError', () => {
    expect(usageMessage(() => resolveJob(undefined, cli(), NOW))).toMatch(/Expected a job file/);
  });

  it('a pricing file replaces the built-in table and is named as the source', () => {
    const pricingFile = join(tmp.dir(), 'prices.json');
    writeFileSync(
      pricingFile,
      JSON.stringify({ group_ratio: 2, chat: { 'chat-small': { input_per_1m: 1, output_per_1m: 2 } } }),
    );
    const job = resolveJob('rows.csv', cli('--pricing', pricingFile), NOW);
    expect(job.pricingSource).toBe(pricingFile);
    expect(job.pricing).toEqual({
      group_ratio: 2,
      video: {},
      chat: { 'chat-small': { input_per_1m: 1, output_per_1m: 2 } },
    });
  });

  it('pricing file errors are UsageErrors naming the file', () => {
    const missing = join(tmp.dir(), 'nope.json');
    expect(usageMessage(() => resolveJob('rows.csv', cli('--pricing', missing), NOW))).toBe(
      `${missing}: cannot read pricing file: no such file or directory (ENOENT)`,
    );
    const invalid = join(tmp.dir(), 'invalid.json');
    writeFileSync(invalid, '{ not json');
    expect(usageMessage(() => resolveJob('rows.csv', cli('--pricing', invalid), NOW))).toMatch(
      /invalid\.json: pricing file is not valid JSON/,
    );
    const negative = join(tmp.dir(), 'negative.json');
    writeFileSync(negative, JSON.stringify({ chat: { 'chat-small': { input_per_1m: -1, output_per_1m: 1 } } }));
    expect(usageMessage(() => resolveJob('rows.csv', cli('--pricing', negative), NOW))).toMatch(
      /negative\.json: pricing field chat\.chat-small\.input_per_1m/,
    );
  });

  it('resolves --deadline against the given now', () => {
    expect(resolveJob('rows.csv', cli('--deadline', '45m'), NOW).deadlineAt).toBe(NOW.getTime() + 45 * 60_000);
    const file = jobFile({ manifest: 'a.csv', options: { deadline: '90s' } });
    expect(resolveJob(file, cli(), NOW).deadlineAt).toBe(NOW.getTime() + 90_000);
    expect(() => resolveJob('rows.csv', cli('--deadline', 'whenever'), NOW)).toThrow(UsageError);
  });
});
