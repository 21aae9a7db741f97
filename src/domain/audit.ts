// The audit log: an append-only record of every security-relevant and money-moving action — who
// (a dashboard user, an API key's account, the operator, the command line), what, on what, when,
// from where, and how it ended. Records are hash-chained: each one's hash covers the previous
// one's, so a record edited or removed breaks the chain from there on (`quipu audit verify`), and
// the chain starts at the genesis or at the anchor the last prune left, so records removed from its
// start are found too. A new kind of action is a new row of AUDIT_ACTIONS.
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
  'tokens.revoke': 'every access token of an account revoked from the dashboard',
  'settings.update': "an account's notification and OAuth settings changed",
  'message.resend': 'a notification or email sent again',
  'message.send-to': 'an event sent once to another URL than its own',
  'notify.test': "a test event sent to the account's notify_url",
  'developer.clock': 'the developer clock moved or reset',
  'developer.scenario': 'a DemoBank scenario run',
  'developer.faults': "an account's faults on demand set or removed",
  'sandbox.account.create': 'a throwaway developer-mode account made by the sandbox (POST /sandbox/accounts, quipu sandbox create)',
  'sandbox.account.delete': 'a sandbox account removed with every record of it',
  'sandbox.snapshot.take': "a sandbox account's state recorded in a snapshot",
  'sandbox.snapshot.restore': 'a sandbox account brought back to one of its snapshots',
  'sandbox.snapshot.delete': "a sandbox account's snapshot removed",
  'operator.call': 'a call of the operator API (bank credits)',
  'oauth.consent.withdraw': "a payer's consent to a client withdrawn on the consent review page (its tokens revoked)",
  'cli.command': 'a command that changes state, run by whoever runs the quipu command line',
} as const;

export type AuditAction = keyof typeof AUDIT_ACTIONS;

/** `loopback`: a caller on the machine itself, let in by the sandbox without OPERATOR_TOKEN (docs/security.md). */
export type AuditActorKind = 'user' | 'api' | 'operator' | 'loopback' | 'cli' | 'payer';
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

export type ChainFault = {
  seq: number;
  problem:
    | 'edited'
    | 'broken before it'
    | 'missing at the end'
    | 'records removed before it, not by a prune'
    | 'edited (the anchor of the last prune)'
    | 'pruned before its retention period ended';
};

/** The chain's head as stored beside it: the last record's number and hash. */
export interface AuditHead {
  seq: number;
  hash: string;
}

/**
 * Where the last prune cut the chain, written in the prune's transaction: the last record it
 * removed, whole, so that its hash is checked against its fields (its date included), and the cut
 * (the prune removed records dated before it). A chain never pruned has none and starts at the
 * genesis.
 */
export interface AuditAnchor {
  record: AuditRecord;
  cut: number;
}

/**
 * Why the chain cannot start at this anchor: it was edited, or the prune that left it removed
 * records the retention period keeps. `latestCut` is the latest cut the period allows now (now
 * minus the period): records removed straight from the table, with an anchor made up to match,
 * are minutes old, and a record's date is covered by its hash.
 */
export function anchorFault(anchor: AuditAnchor, latestCut: number): ChainFault | undefined {
  const { record, cut } = anchor;
  if (auditHash(record.prevHash, record.seq, record) !== record.hash) return { seq: record.seq, problem: 'edited (the anchor of the last prune)' };
  if (record.at >= cut || cut > latestCut) return { seq: record.seq, problem: 'pruned before its retention period ended' };
  return undefined;
}

/**
 * Checks records in order, one at a time (a year of them need not sit in memory): the first must
 * follow the anchor of the last prune, or the genesis when nothing was pruned (records removed
 * from the start); a record whose hash does not cover its fields (edited), one that does not follow
 * the one before it (a record removed or rewritten before it), or a last record that is not the
 * head (records removed at the end). The anchor itself is checked by anchorFault.
 */
export class ChainCheck {
  private last: AuditHead;
  count = 0;

  constructor(anchor?: AuditAnchor) {
    this.last = anchor ? { seq: anchor.record.seq, hash: anchor.record.hash } : { seq: 0, hash: AUDIT_GENESIS };
  }

  next(record: AuditRecord): ChainFault | undefined {
    const last = this.last;
    if (record.seq !== last.seq + 1 || record.prevHash !== last.hash)
      return { seq: record.seq, problem: this.count === 0 ? 'records removed before it, not by a prune' : 'broken before it' };
    if (auditHash(record.prevHash, record.seq, record) !== record.hash) return { seq: record.seq, problem: 'edited' };
    this.last = { seq: record.seq, hash: record.hash };
    this.count++;
    return undefined;
  }

  end(head: AuditHead): ChainFault | undefined {
    return this.last.seq === head.seq && this.last.hash === head.hash ? undefined : { seq: this.last.seq + 1, problem: 'missing at the end' };
  }
}
