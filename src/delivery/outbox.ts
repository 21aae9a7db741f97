// The transactional outbox. Every message Quipu sends, of every kind, is written here, in the
// transaction of the state change that causes it: a committed change always has its messages and
// a rolled-back one never does. The delivery worker picks them up from there. Use cases reach it
// through their context (`ctx.outbox`), and the changes that cause messages write them themselves
// (app/payment-messages.ts), so no caller has to remember to.
import type { Kysely } from 'kysely';
import { newUuid, type RandomBytes } from '../domain/ids.js';
import { MESSAGE_KINDS, type MessageDraft } from '../domain/message-kinds.js';
import type { ShiftableClock } from '../runtime/clock.js';
import { insertMessage, insertMessages } from '../store/messages.js';
import type { DB, MessageRow } from '../store/schema.js';
import { destinationOf } from './destinations.js';

export class Outbox {
  constructor(
    /** A message is dated on its account's clock. */
    protected readonly clocks: Pick<ShiftableClock, 'of'>,
    protected readonly random: RandomBytes,
  ) {}

  /** Writes a message through `db`, which is the transaction of the change that causes it. */
  async write(db: Kysely<DB>, draft: MessageDraft): Promise<MessageRow> {
    const row = this.row(draft);
    await insertMessage(db, row);
    return row;
  }

  /**
   * An outbox for a transaction that changes many subjects in a row (record-credits): it keeps their
   * messages and writes them together, with one statement, when flushed before the commit. Only for
   * work that does not read back or withdraw a message it wrote before flushing.
   */
  collecting(): CollectingOutbox {
    return new CollectingOutbox(this.clocks, this.random);
  }

  protected row(draft: MessageDraft): MessageRow {
    const rule = MESSAGE_KINDS[draft.kind];
    const now = this.clocks.of(draft.receiverId).now().getTime();
    const due = draft.dueAt ?? now;
    return {
      message_id: newUuid(this.random),
      receiver_id: draft.receiverId,
      kind: draft.kind,
      subject_type: rule.subject,
      subject_id: draft.subjectId,
      url: draft.url,
      destination: destinationOf(draft.url),
      content_type: draft.contentType,
      body: draft.body,
      signing: rule.signing,
      status: 'pending',
      attempts: 0,
      round_step: 0,
      round_started_at: due,
      next_attempt_at: due,
      lease_id: null,
      locked_until: null,
      delivered_at: null,
      created_at: now,
      updated_at: now,
      valid_until: draft.validUntil ?? null,
    };
  }
}

export class CollectingOutbox extends Outbox {
  #rows: MessageRow[] = [];

  override async write(_db: Kysely<DB>, draft: MessageDraft): Promise<MessageRow> {
    const row = this.row(draft);
    this.#rows.push(row);
    return row;
  }

  /** Writes what was collected through `db`, the transaction of the changes. */
  async flush(db: Kysely<DB>): Promise<void> {
    const rows = this.#rows;
    this.#rows = [];
    await insertMessages(db, rows);
  }
}
