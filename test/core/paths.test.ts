import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { assertInside, outputPathFor, safeFileStem } from '../../src/core/paths.js';

/** The inverse of safeFileStem for stems that were not shortened with a hash. */
function decodeStem(stem: string): string {
  if (stem === '%') return '';
  const bytes: number[] = [];
  for (let i = 0; i < stem.length; i++) {
    if (stem[i] === '%') {
      bytes.push(parseInt(stem.slice(i + 1, i + 3), 16));
      i += 2;
    } else {
      bytes.push(stem.charCodeAt(i));
    }
  }
  return new TextDecoder('utf-8', { fatal: true }).decode(new Uint8Array(bytes));
}

const LONG = 'x'.repeat(300);
const IDS = [
  '../../etc/passwd',
  '/abs',
  'a/b',
  'a\\b',
  'C:\\Windows\\x',
  '..',
  '.',
  '.hidden',
  '...',
  'a.',
  'CON',
  'con',
  'nul.txt',
  'COM1',
  'LPT9.mp4',
  'CONSOLE',
  '',
  'ビデオ 🎬',
  'é',
  '%',
  '%25',
  '%2F',
  'a b',
  'row-1',
  'Row_1.v2',
  'x\u0000y',
  'tab\there',
  '~',
  LONG,
  `${LONG}y`,
  'ü'.repeat(61),
];

describe('safeFileStem', () => {
  it.each([
    ['row-1', 'row-1'],
    ['Row_1.v2', 'Row_1.v2'],
    ['../../etc/passwd', '%2E.%2F..%2Fetc%2Fpasswd'],
    ['/abs', '%2Fabs'],
    ['a/b', 'a%2Fb'],
    ['.', '%2E'],
    ['..', '%2E%2E'],
    ['.hidden', '%2Ehidden'],
    ['a.', 'a%2E'],
    ['CON', '%43ON'],
    ['nul.txt', '%6Eul.txt'],
    ['CONSOLE', 'CONSOLE'],
    ['', '%'],
    ['%', '%25'],
    ['a b', 'a%20b'],
    ['é', '%C3%A9'],
    ['~', '%7E'],
  ])('%j -> %j', (id, stem) => {
    expect(safeFileStem(id)).toBe(stem);
  });

  it('uses only portable file-name characters and never starts with a dot', () => {
    for (const id of IDS) {
      const stem = safeFileStem(id);
      expect(stem, id).toMatch(/^[A-Za-z0-9_.%~-]+$/);
      expect(stem.startsWith('.'), id).toBe(false);
      expect(stem.endsWith('.'), id).toBe(false);
      expect(Buffer.byteLength(stem), id).toBeLessThanOrEqual(180);
    }
  });

  it('decodes back to the id when not shortened', () => {
    for (const id of IDS) {
      const stem = safeFileStem(id);
      if (!stem.includes('~')) expect(decodeStem(stem), JSON.stringify(id)).toBe(id);
    }
  });

  it('gives distinct ids distinct stems, also where encodings could be confused', () => {
    const stems = IDS.map(safeFileStem);
    expect(new Set(stems).size).toBe(IDS.length);
    expect(safeFileStem('\ud800')).not.toBe(safeFileStem('\udc00')); // lone surrogates are not all U+FFFD
    expect(safeFileStem('\ud800')).not.toBe(safeFileStem('\ufffd'));
  });

  it('shortens a long id to 140 characters + "~" + 32 hex of its sha256', () => {
    const stem = safeFileStem(LONG);
    expect(stem).toMatch(/^x{140}~[0-9a-f]{32}$/);
    // `printf 'x%.0s' {1..300} | sha256sum`, first 32 hex digits
    expect(stem.slice(141)).toBe('0d4e2ca9e9cbced7a7a5380eb29e1a37');
    expect(safeFileStem(`${LONG}y`)).not.toBe(stem);
  });

  it('keeps an id whose stem is exactly 180 bytes', () => {
    expect(safeFileStem('y'.repeat(180))).toBe('y'.repeat(180));
    expect(safeFileStem('y'.repeat(181))).toMatch(/^y{140}~/);
  });
});

describe('outputPathFor', () => {
  for (const outDir of ['out/job', path.resolve('/tmp/gbatch-out'), '.']) {
    it(`keeps every id inside ${outDir}`, () => {
      const files = IDS.map((id) => outputPathFor(outDir, id, '.mp4'));
      for (const file of files) {
        const relative = path.relative(outDir, file);
        expect(relative.startsWith('..'), file).toBe(false);
        expect(path.isAbsolute(relative), file).toBe(false);
        expect(path.dirname(relative), file).toBe('.');
      }
      expect(new Set(files).size).toBe(IDS.length);
    });
  }

  it('keeps a relative --out relative, as the CLI would open it', () => {
    expect(outputPathFor('out/job', 'row1', '.mp4')).toBe(path.join('out', 'job', 'row1.mp4'));
  });

  it('refuses an extension that is not a plain suffix', () => {
    expect(() => outputPathFor('out', 'a', '/../x')).toThrow(/extension/);
    expect(() => outputPathFor('out', 'a', 'mp4')).toThrow(/extension/);
    expect(outputPathFor('out', 'a', '.mp4.part')).toBe(path.join('out', 'a.mp4.part'));
  });
});

describe('assertInside', () => {
  it('accepts entries inside, including names that start with two dots', () => {
    expect(() => assertInside('out', 'out/a.mp4')).not.toThrow();
    expect(() => assertInside('out', 'out/..a.mp4')).not.toThrow();
    expect(() => assertInside('/srv/out', '/srv/out/sub/a')).not.toThrow();
  });

  it('refuses the directory itself, its parent, siblings sharing a prefix, and absolute escapes', () => {
    expect(() => assertInside('out', 'out')).toThrow(/not inside/);
    expect(() => assertInside('out', 'out/../a.mp4')).toThrow(/not inside/);
    expect(() => assertInside('/srv/out', '/srv/outside/a')).toThrow(/not inside/);
    expect(() => assertInside('/srv/out', '/etc/passwd')).toThrow(/not inside/);
  });
});
