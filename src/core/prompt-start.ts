// Pure: the start of a row's prompt on one printable line, for finding its task in the gateway's dashboard.
import { printable } from './printable.js';
import type { ItemKind } from './states.js';

export const PROMPT_START_CHARS = 60;

/**
 * The first `max` characters of what the row asks: the video prompt, the first user message of a chat
 * (else its first message), or the input of a responses request. Whitespace runs (newlines, tabs)
 * become one space, other control characters are escaped, and a longer text ends with an ellipsis.
 */
export function promptStart(kind: ItemKind, request: Record<string, unknown>, max = PROMPT_START_CHARS): string {
  const text =
    kind === 'video'
      ? asText(request.prompt)
      : kind === 'chat'
        ? messagesText(request.messages)
        : asText(request.input) || messagesText(request.input);
  return oneLine(text, max);
}

/** `text` on one line, at most `max` characters (code points) before an ellipsis, control characters escaped. */
export function oneLine(text: string, max: number): string {
  const flat = text.replace(/[\s\u0085\u2028\u2029]+/g, ' ').trim();
  const chars = Array.from(flat);
  const cut = chars.length > max ? `${chars.slice(0, max).join('').trimEnd()}…` : flat;
  return printable(cut);
}

function asText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) {
    // Content parts: [{type: 'text' | 'input_text', text}, ...]; images and other parts carry no words.
    return value
      .map((part) =>
        part && typeof part === 'object' && typeof (part as { text?: unknown }).text === 'string'
          ? (part as { text: string }).text
          : '',
      )
      .filter((t) => t !== '')
      .join(' ');
  }
  return '';
}

function messagesText(messages: unknown): string {
  if (!Array.isArray(messages)) return '';
  const list = messages.filter((m): m is { role?: unknown; content?: unknown } => m !== null && typeof m === 'object');
  const user = list.find((m) => m.role === 'user') ?? list[0];
  return user ? asText(user.content) : '';
}
