import { describe, expect, it } from 'vitest';
import { Flashes } from '../../src/ui/flashes.js';
import { Sessions, SESSION_MS } from '../../src/ui/sessions.js';
import { readUiTokens, uiTokenNamer } from '../../src/ui/ui-tokens.js';

describe('Sessions', () => {
  it('opens a session with its own form token, finds it until it expires, and ends it', () => {
    let now = 1000;
    const sessions = new Sessions(() => now);
    const a = sessions.open('alice');
    const b = sessions.open('alice');
    expect(a.id).not.toBe(b.id);
    expect(a.session.csrf).not.toBe(b.session.csrf);
    expect(sessions.find(a.id)?.who).toBe('alice');
    expect(sessions.find('nope')).toBeUndefined();
    expect(sessions.find(undefined)).toBeUndefined();
    sessions.close(b.id);
    expect(sessions.find(b.id)).toBeUndefined();
    now += SESSION_MS;
    expect(sessions.find(a.id)).toBeUndefined();
  });
});

describe('Flashes', () => {
  it('a message is shown once, within a minute, and only one the server kept', () => {
    let now = 0;
    const flashes = new Flashes(() => now);
    const id = flashes.keep({ text: 'done', bad: false });
    expect(flashes.take(id)).toEqual({ text: 'done' });
    expect(flashes.take(id)).toBeUndefined();
    const late = flashes.keep({ text: 'refused', bad: true });
    now += 60_001;
    expect(flashes.take(late)).toBeUndefined();
    expect(flashes.take('made-up')).toBeUndefined();
  });
});

describe('ui tokens', () => {
  it('name:token entries are known by name, bare ones by a digest prefix; no other token matches', () => {
    const tokens = readUiTokens({ GBATCH_UI_TOKENS: 'alice:tok-a, tok-b ,,' });
    expect(tokens).toEqual([
      { name: 'alice', token: 'tok-a' },
      { name: undefined, token: 'tok-b' },
    ]);
    const who = uiTokenNamer(tokens);
    expect(who('tok-a')).toBe('alice');
    expect(who('tok-b')).toMatch(/^[0-9a-f]{32}$/);
    expect(who('alice:tok-a')).toBeUndefined();
    expect(who('tok-c')).toBeUndefined();
  });
});
