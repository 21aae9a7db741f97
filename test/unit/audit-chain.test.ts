// The audit log's hash chain, as `quipu audit verify` checks it: intact records pass; an edited
// record, one removed from the middle or the end, and one rewritten with a fresh hash are each
// named; the oldest record kept anchors a pruned chain.
import { describe, expect, it } from 'vitest';
import { AUDIT_GENESIS, type AuditEntry, auditHash, type AuditHead, type AuditRecord, ChainCheck } from '../../src/domain/audit.js';

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

function check(records: AuditRecord[], head: AuditHead) {
  const checker = new ChainCheck();
  for (const record of records) {
    const fault = checker.next(record);
    if (fault) return fault;
  }
  return checker.end(head);
}

describe('the audit chain', () => {
  const records = chain(5);
  const head = headOf(records);

  it('passes intact records, an empty log, and a log pruned to its newest records', () => {
    expect(check(records, head)).toBeUndefined();
    expect(check([], { seq: 0, hash: AUDIT_GENESIS })).toBeUndefined();
    expect(check(records.slice(2), head)).toBeUndefined();
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
    expect(check([], head)).toEqual({ seq: 5, problem: 'missing at the end' });
  });
});
