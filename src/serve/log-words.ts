// A batch's run logs what `gbatch run` says to an operator: its journal, its later runs, commands to type.
// A client of serve knows batches, requests and their files, and can run none of those commands: its log
// gets the same news in those words. The runner's own wording stays the CLI's.

interface Rewording {
  pattern: RegExp;
  say: string;
}

/** Whole sentences the runner says, in order: the first that matches is said the server's way. */
const SENTENCES: readonly Rewording[] = [
  {
    // The cancel came from the client (its batches.cancel): `gbatch retry --cancelled` is no option here.
    pattern: /^the job was cancelled \((.*?)\): nothing more is sent; .*$/,
    say:
      'cancelled ($1): nothing more is sent; requests not sent end batch_cancelled in the error file; ' +
      'tasks already submitted are still polled, downloaded and billed (the gateway has no cancel)',
  },
  {
    pattern: /^budget (\S+) in force; it is cumulative for this journal and kept by later runs(.*)$/,
    say: 'budget $1 in force for the batch, all its requests together$2',
  },
  { pattern: /^budget (\S+) in force \(cumulative for this journal\)(.*)$/, say: 'budget $1 in force for the batch$2' },
  {
    pattern: /^budget changed: (\S+) -> (\S+) \(cumulative for this journal\)(.*)$/,
    say: "the batch's budget is now $2 (was $1)$3",
  },
  { pattern: /^(\d+) item\(s\) deferred by --budget; /, say: '$1 request(s) held back by the budget; ' },
  // A batch's deadline is its completion window's end (expires_at); serve has no --drain.
  { pattern: /^deadline: /, say: 'expires at ' },
  { pattern: /^deadline reached \((.*?)\): /, say: 'the completion window ended ($1): ' },
];

/** Phrases anywhere in a line, each replaced wherever it stands (after the sentences above). */
const PHRASES: readonly Rewording[] = [
  // The server ends a batch's uncertain requests in its error file; no operator decides them for a client.
  { pattern: / \(see `gbatch status`, decide with `gbatch resolve`\)/g, say: " (the batch's error file names them)" },
  { pattern: /;? ?decide with `gbatch resolve`/g, say: "; the batch's error file names it" },
  { pattern: /; `gbatch [^`]*`[^;]*/g, say: '' },
  { pattern: / \(gbatch resolve\)/g, say: '' },
  { pattern: /,? (?:within --drain|\(--drain\))/g, say: '' },
  { pattern: /after the deadline/g, say: 'after the completion window' },
  {
    pattern: /(?:anything unfinished|unfinished work) is left for the next run/g,
    say: 'what did not finish ends batch_expired in the error file',
  },
  { pattern: /left pending for a later run/g, say: 'left pending: the server tries again' },
  { pattern: /a later run retries it/g, say: 'the server tries again' },
  { pattern: / an earlier run left /g, say: ' left ' },
  { pattern: /\b(?:(?:a|the|every) )?(?:later|earlier|next) (?:gbatch )?runs?\b/g, say: "the server's next try" },
  { pattern: /\bitem\(s\)/g, say: 'request(s)' },
  { pattern: /\bitems\b/g, say: 'requests' },
  { pattern: /\bitem\b/g, say: 'request' },
  { pattern: /\bthe journal's\b/g, say: "the batch's store's" },
  { pattern: /\b(?:the|this) journal\b/g, say: "the batch's store" },
  { pattern: /\bjournal\b/g, say: 'store' },
];

/** The runner's log line as serve says it of a batch. */
export function inBatchApiWords(line: string): string {
  let said = line;
  const sentence = SENTENCES.find((rewording) => rewording.pattern.test(said));
  if (sentence) said = said.replace(sentence.pattern, sentence.say);
  for (const phrase of PHRASES) said = said.replace(phrase.pattern, phrase.say);
  return said;
}
