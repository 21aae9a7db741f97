// The audit log's hash chain, as `quipu audit verify` checks it: intact records pass; an edited
// record, one removed from the start, the middle or the end, and one rewritten with a fresh hash
// are each named; a pruned chain starts at the anchor its prune left, which must be the last record
// removed, unedited, and past the retention period.
import { describe, expect, it } from 'vitest';
import {
  anchorFault,
  type AuditAnchor,
  AUDIT_GENESIS,
  type AuditEntry,
  auditHash,
  type AuditHead,
  type AuditRecord,
  ChainCheck,
} from '../../src/domain/audit.js';

const entry = (i: number): AuditEntry => ({
  at: 1_700_000_000_000 + i,
  actorKind: 'user',
  actor: `u${i}@shop.test`,
  receiverId: 7,
  action: 'payment.refund',
  target: `/p/${i}`,
  outcome: 'ok',
  address: '10.0.0.1',
});

function chain(length: number): AuditRecord[] {
  const records: AuditRecord[] = [];
  let prevHash = AUDIT_GENESIS;
  for (let seq = 1; seq <= length; seq++) {
    const record = { ...entry(seq), seq, prevHash, hash: auditHash(prevHash, seq, entry(seq)) };
    records.push(record);
    prevHash = record.hash;
  }
  return records;
}

const headOf = (records: AuditRecord[]): AuditHead => ({ seq: records.at(-1)!.seq, hash: records.at(-1)!.hash });

function check(records: AuditRecord[], head: AuditHead, anchor?: AuditAnchor) {
  const checker = new ChainCheck(anchor);
  for (const record of records) {
    const fault = checker.next(record);
    if (fault) return fault;
  }
  return checker.end(head);
}

describe('the audit chain', () => {
  const records = chain(5);
  const head = headOf(records);

  it('passes intact records and an empty log', () => {
    expect(check(records, head)).toBeUndefined();
    expect(check([], { seq: 0, hash: AUDIT_GENESIS })).toBeUndefined();
  });

  it('names an edited record', () => {
    const edited = records.map((r) => (r.seq === 3 ? { ...r, outcome: 'refused' as const } : r));
    expect(check(edited, head)).toEqual({ seq: 3, problem: 'edited' });
  });

  it('names the record after one removed, or rewritten with a hash of its own', () => {
    expect(
      check(
        records.filter((r) => r.seq !== 3),
        head,
      ),
    ).toEqual({ seq: 4, problem: 'broken before it' });
    const forged = { ...records[2]!, actor: 'someone-else' };
    const rehashed = records.map((r) => (r.seq === 3 ? { ...forged, hash: auditHash(forged.prevHash, 3, forged) } : r));
    expect(check(rehashed, head)).toEqual({ seq: 4, problem: 'broken before it' });
  });

  it('names records removed at the end, or all of them', () => {
    expect(check(records.slice(0, 4), head)).toEqual({ seq: 5, problem: 'missing at the end' });
    expect(check([], head)).toEqual({ seq: 1, problem: 'missing at the end' });
  });

  it('names the first record kept when the oldest were removed and no prune says so', () => {
    expect(check(records.slice(2), head)).toEqual({ seq: 3, problem: 'records removed before it, not by a prune' });
    expect(check(records.slice(4), head)).toEqual({ seq: 5, problem: 'records removed before it, not by a prune' });
  });
});

describe('a pruned chain', () => {
  const records = chain(5);
  const head = headOf(records);
  // Records dated 1_700_000_000_001 to ..._005; a prune with the cut after the second removed two.
  const anchor: AuditAnchor = { record: records[1]!, cut: records[1]!.at + 1 };
  const now = records[4]!.at + 400 * 86_400_000 + 10;

  it('starts at the anchor its prune left', () => {
    expect(anchorFault(anchor, now - 400 * 86_400_000)).toBeUndefined();
    expect(check(records.slice(2), head, anchor)).toBeUndefined();
    // Everything pruned, the head among them: the anchor is the head.
    const all: AuditAnchor = { record: records[4]!, cut: records[4]!.at + 1 };
    expect(anchorFault(all, now - 400 * 86_400_000)).toBeUndefined();
    expect(check([], head, all)).toBeUndefined();
  });

  it('names records removed after the cut, and a chain that does not follow its anchor', () => {
    expect(check(records.slice(3), head, anchor)).toEqual({ seq: 4, problem: 'records removed before it, not by a prune' });
    expect(check(records.slice(1), head, anchor)).toEqual({ seq: 2, problem: 'records removed before it, not by a prune' });
  });

  it('names an anchor edited, or one that cut where the retention period keeps records', () => {
    const moved = { ...anchor, record: { ...anchor.record, at: anchor.record.at - 86_400_000 } };
    expect(anchorFault(moved, now)).toEqual({ seq: 2, problem: 'edited (the anchor of the last prune)' });
    // The last record removed is younger than the period allows now, or dated after its own cut.
    expect(anchorFault(anchor, anchor.cut - 1)).toEqual({ seq: 2, problem: 'pruned before its retention period ended' });
    expect(anchorFault({ ...anchor, cut: anchor.record.at }, now)).toEqual({ seq: 2, problem: 'pruned before its retention period ended' });
  });
});
