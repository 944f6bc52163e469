// Deterministic "model output": the same messages and seed always give the same words, so tests and
// rehearsals can compare runs. One word is one completion token.

const WORDS = [
  'the',
  'gateway',
  'answers',
  'every',
  'request',
  'with',
  'calm',
  'and',
  'simulated',
  'words',
  'about',
  'light',
  'rivers',
  'mountains',
  'cities',
  'quiet',
  'morning',
  'signal',
  'batch',
  'video',
  'frames',
  'budget',
  'ledger',
  'token',
  'stream',
  'bright',
  'slow',
  'fast',
  'green',
  'blue',
  'ocean',
  'forest',
  'a',
  'small',
  'large',
  'story',
  'of',
  'clouds',
  'over',
  'fields',
  'in',
  'spring',
  'autumn',
  'winter',
  'summer',
  'night',
  'day',
  'soft',
  'loud',
  'echo',
  'path',
  'stone',
  'glass',
  'paper',
  'wind',
  'fire',
  'water',
  'earth',
  'sky',
  'star',
  'moon',
  'sun',
  'road',
  'home',
] as const;

const MIN_WORDS = 8;
const WORD_SPAN = 25;

export interface TextInput {
  /** Characters of all message text (usage: prompt tokens = ceil(chars / 4)). */
  chars: number;
  hash: number;
  /** The last user message's text: the ledger's key for counting duplicate submissions. */
  lastUserText: string;
}

export interface Completion {
  /** Content deltas in order; joined they are the text. */
  pieces: string[];
  text: string;
  tokens: number;
  finishReason: 'stop' | 'length';
}

/** FNV-1a over the text, continuing from `hash`. */
function fnv(hash: number, text: string): number {
  let h = hash;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 16777619);
  }
  return h >>> 0;
}

/** The text of a content value: a string, or the `text` of each part of an array. */
function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  let out = '';
  for (const part of content) {
    if (part !== null && typeof part === 'object' && typeof (part as { text?: unknown }).text === 'string') {
      out += (part as { text: string }).text;
    }
  }
  return out;
}

class InputAccumulator {
  chars = 0;
  hash = 2166136261;
  lastUserText = '';

  add(role: unknown, text: string): void {
    this.chars += text.length;
    this.hash = fnv(fnv(this.hash, typeof role === 'string' ? role : ''), text);
    if (role === 'user') this.lastUserText = text;
  }

  result(): TextInput {
    return { chars: this.chars, hash: this.hash, lastUserText: this.lastUserText };
  }
}

export function chatInput(messages: readonly unknown[]): TextInput {
  const acc = new InputAccumulator();
  for (const message of messages) {
    const m = message as { role?: unknown; content?: unknown };
    acc.add(m.role, contentText(m.content));
  }
  return acc.result();
}

/** Responses `input` (a string is one user message) plus `instructions`. */
export function responsesInput(input: unknown, instructions: unknown): TextInput {
  const acc = new InputAccumulator();
  if (typeof instructions === 'string') acc.add('system', instructions);
  if (typeof input === 'string') acc.add('user', input);
  else if (Array.isArray(input)) {
    for (const item of input) {
      const m = item as { role?: unknown; content?: unknown; text?: unknown };
      acc.add(m.role, typeof m.text === 'string' ? m.text : contentText(m.content));
    }
  }
  return acc.result();
}

/** 8 to 32 words chosen by the input's hash, the seed and the choice index, cut at maxTokens. */
export function complete(input: TextInput, seed: number, choiceIndex: number, maxTokens?: number): Completion {
  let h = fnv(input.hash, `${seed}:${choiceIndex}`);
  const wanted = MIN_WORDS + (h % WORD_SPAN);
  const count = maxTokens === undefined ? wanted : Math.min(wanted, maxTokens);
  const pieces: string[] = [];
  for (let i = 0; i < count; i++) {
    h = Math.imul(h ^ (h >>> 13), 0x5bd1e995) >>> 0;
    const word = WORDS[h % WORDS.length]!;
    pieces.push(i === 0 ? word.charAt(0).toUpperCase() + word.slice(1) : ` ${word}`);
  }
  if (count === wanted && count > 0) pieces[count - 1] += '.';
  return { pieces, text: pieces.join(''), tokens: count, finishReason: count < wanted ? 'length' : 'stop' };
}
