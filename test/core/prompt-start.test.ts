import { describe, expect, it } from 'vitest';
import { oneLine, promptStart, PROMPT_START_CHARS } from '../../src/core/prompt-start.js';
import { printable } from '../../src/core/printable.js';
import { quoteArg } from '../../src/core/shell-text.js';

describe('promptStart: what to look for in the gateway dashboard', () => {
  it('takes the video prompt, the first user message of a chat, the input of a responses request', () => {
    expect(promptStart('video', { prompt: 'A heron lifting off a misty pond' })).toBe(
      'A heron lifting off a misty pond',
    );
    expect(
      promptStart('chat', {
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'Name a star.' },
        ],
      }),
    ).toBe('Name a star.');
    expect(promptStart('chat', { messages: [{ role: 'system', content: 'Only a system prompt' }] })).toBe(
      'Only a system prompt',
    );
    expect(
      promptStart('chat', {
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'Describe' },
              { type: 'image_url', image_url: {} },
              { type: 'text', text: 'this' },
            ],
          },
        ],
      }),
    ).toBe('Describe this');
    expect(promptStart('responses', { input: 'Summarise the report' })).toBe('Summarise the report');
    expect(
      promptStart('responses', { input: [{ role: 'user', content: [{ type: 'input_text', text: 'From parts' }] }] }),
    ).toBe('From parts');
  });

  it('is empty for a request without words, never throwing', () => {
    expect(promptStart('video', {})).toBe('');
    expect(promptStart('chat', { messages: 'not a list' })).toBe('');
    expect(promptStart('chat', { messages: [null, 3] })).toBe('');
    expect(promptStart('responses', { input: 42 })).toBe('');
  });

  it('cuts a long prompt at 60 characters with an ellipsis, without splitting a character', () => {
    const long = 'word '.repeat(40);
    const start = promptStart('video', { prompt: long });
    expect(start.endsWith('…')).toBe(true);
    expect(Array.from(start).length).toBeLessThanOrEqual(PROMPT_START_CHARS + 1);
    expect(oneLine('🐦'.repeat(70), 60)).toBe(`${'🐦'.repeat(60)}…`);
    expect(oneLine('x'.repeat(60), 60)).toBe('x'.repeat(60));
  });

  it('puts newlines and tabs on one line, and escapes control and bidi characters', () => {
    expect(promptStart('video', { prompt: 'line one\r\n\tline two\u2028three' })).toBe('line one line two three');
    expect(promptStart('video', { prompt: 'red \x1b[31malert\x07 \u202Eevil' })).toBe(
      'red \\x1b[31malert\\x07 \\u202eevil',
    );
    expect(promptStart('video', { prompt: `${'a'.repeat(59)}\x1b[2J` })).toBe(`${'a'.repeat(59)}\\x1b…`);
  });
});

describe('shell text', () => {
  it('quoteArg leaves plain ids and paths alone and quotes the rest so a shell reads them back', () => {
    expect(quoteArg('state/demo.db')).toBe('state/demo.db');
    expect(quoteArg('v7')).toBe('v7');
    expect(quoteArg('my dir/j.db')).toBe("'my dir/j.db'");
    expect(quoteArg("it's")).toBe(`'it'\\''s'`);
    expect(quoteArg('$(rm -rf ~)')).toBe("'$(rm -rf ~)'");
  });

  it('printable escapes C0, DEL, C1 and bidi overrides and nothing else', () => {
    expect(printable('a\x00b\x7fc\x9bd\u2066e é ✓')).toBe('a\\x00b\\x7fc\\x9bd\\u2066e é ✓');
  });
});
