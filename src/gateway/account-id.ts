// The account a runner sends as, named without the key: runners sharing a job agree on its pace and
// pauses under this name, and the key itself never reaches the journal.
import { createHash } from 'node:crypto';

export function accountId(baseUrl: string, apiKey: string): string {
  return createHash('sha256').update(`${baseUrl}\n${apiKey}`).digest('hex').slice(0, 32);
}
