// After the journal was lost under a live run (its file deleted or replaced): the lines that tell the
// operator where the run's journal was saved, what it holds, and how to resume from it.
import type { JournalFileLoss, JournalRescue } from '../../journal/index.js';

/** How a lost journal file is named to the operator (a file moved away looks deleted from its path). */
export function lossWords(kind: 'deleted' | 'replaced'): string {
  return kind === 'deleted' ? 'deleted (or moved away)' : 'replaced by another file';
}

function listed(rows: string[], total: number): string {
  return `${rows.join(', ')}${total > rows.length ? `, ... and ${total - rows.length} more` : ''}`;
}

/**
 * The few lines that tell the operator the truth about a journal lost mid-run (`rescue`: what the journal saved, if
 * anything).
 */
export function journalLossReport(
  location: string,
  kind: JournalFileLoss,
  rescue: JournalRescue | undefined,
): string[] {
  const lines = [
    `the journal at ${location} was ${lossWords(kind)} while this run was using it: no new request was sent after that; requests already in flight were let finish and recorded`,
  ];
  if (!rescue) return lines;
  const { copy, sent, unsure } = rescue;
  if ('path' in copy) lines.push(`the run's journal was saved to ${copy.path}`);
  else lines.push(`the run's journal could NOT be saved (${copy.error}): the ids below are all that is left of it`);
  if (sent.total > 0)
    lines.push(
      `${sent.total} row(s) were sent and have task ids (item -> task): ${listed(
        sent.rows.map((r) => `${r.id} -> ${r.taskId}`),
        sent.total,
      )}`,
    );
  if (unsure.total > 0)
    lines.push(`${unsure.total} row(s) may have reached the gateway (uncertain): ${listed(unsure.ids, unsure.total)}`);
  if ('path' in copy) {
    lines.push(
      kind === 'replaced'
        ? `to resume, move the file now at ${location} aside, then move ${copy.path} to ${location}; never run against the replacement: it does not know these tasks`
        : `to resume, move ${copy.path} back to ${location}; never start a new journal there: it would not know these tasks`,
    );
  }
  return lines;
}
