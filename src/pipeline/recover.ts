// On start: whatever a killed runner left mid-request becomes `uncertain`; never resent blindly.
import type { JournalRun } from '../journal/index.js';
import type { RunSettings } from './context.js';
import type { RunVoice } from './voice/run-voice.js';

export interface Recovery {
  /** Items found `submitting`: their request may have reached the gateway. */
  madeUncertain: string[];
  /** Uncertain chat/responses items sent again under the opt-in policy. */
  resubmitted: string[];
  messages: string[];
}

export async function recoverJournal(
  journal: JournalRun,
  settings: Pick<RunSettings, 'resubmitUncertainText' | 'maxAutoResubmits'>,
  voice: RunVoice,
): Promise<Recovery> {
  const recovery: Recovery = { madeUncertain: [], resubmitted: [], messages: [] };
  const interrupted = await journal.recoverInterrupted();
  recovery.madeUncertain = interrupted.map((i) => i.id);
  if (interrupted.length > 0) {
    recovery.messages.push(voice.uncertainNow(interrupted.length, 'when the last runner stopped'));
  }
  if (settings.resubmitUncertainText) {
    const eligible = (await journal.list(['uncertain'])).filter(
      (item) => item.kind !== 'video' && item.autoResubmits < settings.maxAutoResubmits,
    );
    await journal.apply(
      eligible.map((item) => ({
        id: item.id,
        event: 'resubmit' as const,
        patch: { autoResubmits: item.autoResubmits + 1, reservedUsd: 0 },
        detail: { reason: 'auto-resubmit of an uncertain text item (opt-in)', autoResubmits: item.autoResubmits + 1 },
      })),
    );
    recovery.resubmitted = eligible.map((i) => i.id);
    for (const item of eligible) {
      recovery.messages.push(
        `resubmitting uncertain ${item.kind} ${voice.item} '${item.id}' (opt-in policy; a duplicate may be billed)`,
      );
    }
  }
  return recovery;
}
