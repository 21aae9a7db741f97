// The audit log: an append-only record of every security-relevant and money-moving action — who
// (a dashboard user, an API key's account, the operator, the command line), what, on what, when,
// from where, and how it ended. Records are hash-chained: each one's hash covers the previous
// one's, so a record edited or removed breaks the chain from there on (`quipu audit verify`).
// A new kind of action is a new row of AUDIT_ACTIONS.
import { hash } from 'node:crypto';

export const AUDIT_ACTIONS = {
  'sign-in': 'a dashboard sign-in with a password (refused: a wrong one, a disabled user, an expired initial password, a wait, a missing second factor)',
  'sign-in.second-factor': "a dashboard sign-in's second factor",
  'session.end': "signing out, here or everywhere, or ending one's other sessions from the sessions page (the password given again)",
  'password.change': "a dashboard user's own password changed (every other session of theirs ends)",
  'payment.refund': 'a refund, by the API or the dashboard',
  'payment.delete': 'a pending payment deleted',
  'payment.confirm': 'a payment confirmed, releasing its funds',
  'payment.mark-paid': 'a payment marked paid by its merchant',
  'demobank.decide': "DemoBank's answer on a payment, mandate or charge, given from the dashboard or the sandbox API",
  'charge.create': 'a charge intent on a mandate',
  'receiver.create': 'a receiver account created through the API',
  'credentials.reveal': "an account's credentials shown",
  'credentials.rotate': "an account's API key rotated",
  'settings.update': "an account's notification and OAuth settings changed",
  'message.resend': 'a notification or email sent again',
  'message.send-to': 'an event sent once to another URL than its own',
  'notify.test': "a test event sent to the account's notify_url",
  'developer.clock': 'the developer clock moved or reset',
  'developer.scenario': 'a DemoBank scenario run',
  'developer.faults': "an account's faults on demand set or removed",
  'operator.call': 'a call of the operator API (bank credits)',
  'oauth.consent.withdraw': "a payer's consent to a client withdrawn on the consent review page (its tokens revoked)",
  'cli.command': 'a command that changes state, run by whoever runs the quipu command line',
} as const;

export type AuditAction = keyof typeof AUDIT_ACTIONS;

export type AuditActorKind = 'user' | 'api' | 'operator' | 'cli' | 'payer';
export type AuditOutcome = 'ok' | 'refused' | 'failed';

export interface AuditEntry {
  /** Milliseconds since the epoch, on the wall clock: the developer clock does not date security records. */
  at: number;
  actorKind: AuditActorKind;
  /** The user's email, the account's receiver id (API), the caller's address or command, or a payer's subject for the client (the id_token's sub). */
  actor: string;
  /** The account acted on, when the action is one account's. */
  receiverId: number | null;
  action: AuditAction;
  /** What was acted on: a payment id, a path, an email. */
  target: string | null;
  outcome: AuditOutcome;
  /** The client's address, as the server sees it (TRUST_PROXY). */
  address: string | null;
}

export interface AuditRecord extends AuditEntry {
  seq: number;
  prevHash: string;
  hash: string;
}

/** The chain's start: what the first record's prevHash is. */
export const AUDIT_GENESIS = '0'.repeat(64);

/** An HTTP answer's status as the outcome of what it asked for. */
export const outcomeOf = (status: number): AuditOutcome => (status < 400 ? 'ok' : status < 500 ? 'refused' : 'failed');

/** The record's hash: SHA-256 over the previous hash, its number and every field in a fixed order. */
export function auditHash(prevHash: string, seq: number, entry: AuditEntry): string {
  const fields = [entry.at, entry.actorKind, entry.actor, entry.receiverId, entry.action, entry.target, entry.outcome, entry.address];
  return hash('sha256', `${prevHash}\n${seq}\n${JSON.stringify(fields)}`, 'hex');
}

export type ChainFault = { seq: number; problem: 'edited' | 'broken before it' | 'missing at the end' };

/** The chain's head as stored beside it: the last record's number and hash. */
export interface AuditHead {
  seq: number;
  hash: string;
}

/**
 * Checks records in order, one at a time (a year of them need not sit in memory): a record whose
 * hash does not cover its fields (edited), one that does not follow the one before it (a record
 * removed or rewritten before it), or a last record that is not the head (records removed at the
 * end). The oldest record kept anchors the chain (older ones may have been pruned after the
 * retention period): its prevHash is taken as given.
 */
export class ChainCheck {
  private last: AuditRecord | undefined;
  count = 0;

  next(record: AuditRecord): ChainFault | undefined {
    const last = this.last;
    if (last !== undefined && (record.seq !== last.seq + 1 || record.prevHash !== last.hash)) return { seq: record.seq, problem: 'broken before it' };
    if (auditHash(record.prevHash, record.seq, record) !== record.hash) return { seq: record.seq, problem: 'edited' };
    this.last = record;
    this.count++;
    return undefined;
  }

  end(head: AuditHead): ChainFault | undefined {
    if (this.last === undefined) return head.seq === 0 ? undefined : { seq: head.seq, problem: 'missing at the end' };
    return this.last.seq === head.seq && this.last.hash === head.hash ? undefined : { seq: this.last.seq + 1, problem: 'missing at the end' };
  }
}
