import { describe, expect, it } from 'vitest';
import { ITEM_STATES, type ItemState } from '../../../src/core/states.js';
import { recoverJournal } from '../../../src/pipeline/recover.js';
import { operatorVoice } from '../../../src/pipeline/voice/operator-voice.js';
import { entry, eventRows, forceState, ingest, itemRows, useTempDir } from '../../helpers/journal-fixtures.js';

const tmp = useTempDir();

/** One chat item per state, as a runner killed mid-flight would leave them, written straight through SQL. */
function seedEveryState(journal: ReturnType<typeof tmp.open>): void {
  ingest(
    journal,
    ITEM_STATES.map((state) => entry(`chat-${state}`)),
  );
  for (const state of ITEM_STATES) {
    forceState(journal, `chat-${state}`, state, {
      attempts: state === 'pending' ? 0 : 2,
      reserved_usd: ['submitting', 'submitted', 'running', 'uncertain'].includes(state) ? 0.01 : 0,
    });
  }
}

const OFF = { resubmitUncertainText: false, maxAutoResubmits: 1 };

describe('recoverJournal', () => {
  it('turns every leftover submitting item uncertain, with a lastError and an event; other states are untouched', async () => {
    const journal = tmp.open();
    seedEveryState(journal);
    ingest(journal, [entry('video-submitting', { kind: 'video' })]);
    forceState(journal, 'video-submitting', 'submitting', { attempts: 1, reserved_usd: 0.5 });
    const before = new Map(itemRows(journal).map((r) => [r.id as string, r]));

    const recovery = await recoverJournal(journal.store, OFF, operatorVoice);

    expect(recovery.madeUncertain.sort()).toEqual(['chat-submitting', 'video-submitting']);
    expect(recovery.resubmitted).toEqual([]);
    expect(recovery.messages).toHaveLength(1);
    expect(recovery.messages[0]).toMatch(/2 item\(s\).*uncertain.*gbatch resolve/);

    const chat = journal.get('chat-submitting')!;
    expect(chat.state).toBe('uncertain');
    expect(chat.reservedUsd).toBe(0.01); // the gateway may charge it: the money stays reserved
    expect(chat.lastError?.message).toMatch(/attempt 2 may have been on the wire/);
    expect(journal.events('chat-submitting')).toEqual([
      expect.objectContaining({
        event: 'lose',
        from: 'submitting',
        to: 'uncertain',
        detail: { reason: 'interrupted', attempt: 2 },
      }),
    ]);
    expect(journal.get('video-submitting')).toMatchObject({ state: 'uncertain', reservedUsd: 0.5 });

    for (const row of itemRows(journal)) {
      if (row.id === 'chat-submitting' || row.id === 'video-submitting') continue;
      expect(row).toEqual(before.get(row.id as string));
    }
    expect(eventRows(journal)).toHaveLength(2);
    // As the next run reads it (the seeding above went around this journal's spend cache, through SQL).
    expect(tmp.open('job.db', { readonly: true }).spend()).toEqual({ reservedUsd: 0.54, actualUsd: 0 });
  });

  it('does nothing on a clean journal', async () => {
    const journal = tmp.open();
    ingest(journal, [entry('a'), entry('b')]);
    const rows = itemRows(journal);
    expect(
      await recoverJournal(journal.store, { resubmitUncertainText: true, maxAutoResubmits: 2 }, operatorVoice),
    ).toEqual({
      madeUncertain: [],
      resubmitted: [],
      messages: [],
    });
    expect(itemRows(journal)).toEqual(rows);
    expect(eventRows(journal)).toEqual([]);
  });

  it('with resubmitUncertainText, sends back only chat/responses uncertain items below maxAutoResubmits', async () => {
    const journal = tmp.open();
    ingest(journal, [
      entry('chat-uncertain'),
      entry('responses-uncertain', { kind: 'responses' }),
      entry('chat-at-limit'),
      entry('video-uncertain', { kind: 'video' }),
      entry('chat-submitting'),
      entry('video-submitting', { kind: 'video' }),
      entry('chat-pending'),
    ]);
    const uncertain: Array<[string, number]> = [
      ['chat-uncertain', 0],
      ['responses-uncertain', 1],
      ['chat-at-limit', 2],
      ['video-uncertain', 0],
    ];
    for (const [id, auto] of uncertain)
      forceState(journal, id, 'uncertain', { attempts: 1, auto_resubmits: auto, reserved_usd: 0.01 });
    forceState(journal, 'chat-submitting', 'submitting', { attempts: 3, reserved_usd: 0.01 });
    forceState(journal, 'video-submitting', 'submitting', { attempts: 1, reserved_usd: 0.5 });
    const pendingBefore = itemRows(journal).find((r) => r.id === 'chat-pending');

    const recovery = await recoverJournal(
      journal.store,
      { resubmitUncertainText: true, maxAutoResubmits: 2 },
      operatorVoice,
    );

    expect(recovery.madeUncertain.sort()).toEqual(['chat-submitting', 'video-submitting']);
    expect(recovery.resubmitted.sort()).toEqual(['chat-submitting', 'chat-uncertain', 'responses-uncertain']);
    for (const id of recovery.resubmitted) {
      expect(recovery.messages.some((m) => m.includes(`'${id}'`) && /duplicate may be billed/.test(m))).toBe(true);
    }
    const state = (id: string): ItemState => journal.get(id)!.state;
    expect(journal.get('chat-uncertain')).toMatchObject({ state: 'pending', autoResubmits: 1, reservedUsd: 0 });
    expect(journal.get('responses-uncertain')).toMatchObject({ state: 'pending', autoResubmits: 2, reservedUsd: 0 });
    expect(journal.get('chat-submitting')).toMatchObject({ state: 'pending', autoResubmits: 1, attempts: 3 });
    expect(journal.get('chat-at-limit')).toMatchObject({ state: 'uncertain', autoResubmits: 2 });
    expect(state('video-uncertain')).toBe('uncertain');
    expect(state('video-submitting')).toBe('uncertain');
    expect(itemRows(journal).find((r) => r.id === 'chat-pending')).toEqual(pendingBefore);

    expect(journal.events('chat-submitting').map((e) => e.event)).toEqual(['lose', 'resubmit']);
    expect(journal.events('chat-uncertain')).toEqual([
      expect.objectContaining({
        event: 'resubmit',
        from: 'uncertain',
        to: 'pending',
        detail: expect.objectContaining({ autoResubmits: 1 }),
      }),
    ]);
    expect(journal.events('video-uncertain')).toEqual([]);
  });

  it('never auto-resubmits when the policy is off (the default)', async () => {
    const journal = tmp.open();
    ingest(journal, [entry('chat-uncertain')]);
    forceState(journal, 'chat-uncertain', 'uncertain', { attempts: 1 });
    expect((await recoverJournal(journal.store, OFF, operatorVoice)).resubmitted).toEqual([]);
    expect(journal.get('chat-uncertain')!.state).toBe('uncertain');
  });
});
