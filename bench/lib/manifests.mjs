// Manifest generators for the benchmarks (written once per run into a temp dir).
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';

async function writeLines(file, count, lineFor) {
  const out = createWriteStream(file);
  for (let i = 0; i < count; i++) {
    if (!out.write(lineFor(i))) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
  return file;
}

export function chatJsonl(file, count) {
  return writeLines(
    file,
    count,
    (i) =>
      `${JSON.stringify({
        id: `chat-${i}`,
        kind: 'chat',
        model: 'chat-small',
        max_tokens: 16,
        messages: [{ role: 'user', content: `Give me a one-line fact about the number ${i}.` }],
      })}\n`,
  );
}

export function chatCsv(file, count) {
  return writeLines(file, count + 1, (i) =>
    i === 0
      ? 'id,kind,model,prompt,max_tokens\n'
      : `chat-${i - 1},chat,chat-small,"Give me a one-line fact about the number ${i - 1}, please.",16\n`,
  );
}

export function videoJsonl(file, count, extra = {}) {
  return writeLines(
    file,
    count,
    (i) =>
      `${JSON.stringify({
        id: `video-${i}`,
        kind: 'video',
        model: 'video-fast',
        prompt: `A slow pan over scene number ${i}`,
        resolution: '720p',
        duration: 5,
        ...extra,
      })}\n`,
  );
}
