// The sandbox's door without OPERATOR_TOKEN (src/domain/sandbox-door.ts): a caller on the machine
// that reaches Quipu directly is let in; what a proxy adds, a proxy the operator named, a host name
// other than this machine's and an installation listening beyond loopback each keep it out. And the
// snapshots an account keeps, in number and in bytes (src/domain/snapshot-limits.ts).
import { describe, expect, it } from 'vitest';
import { tokenlessRefusal } from '../../src/domain/sandbox-door.js';
import { noRoomForSnapshot, snapshotsTooLarge } from '../../src/domain/snapshot-limits.js';

const direct = { host: '127.0.0.1', peer: '127.0.0.1', behindProxy: false, headers: { host: '127.0.0.1:3000' } };

describe("the sandbox's door without a token", () => {
  it('lets in a caller on the machine that reaches it at a loopback address or localhost', () => {
    for (const host of ['127.0.0.1:3000', 'localhost:3000', 'localhost', '[::1]:3000'])
      expect(tokenlessRefusal({ ...direct, headers: { host } }), host).toBeUndefined();
    expect(tokenlessRefusal({ ...direct, host: 'localhost', peer: '::1' })).toBeUndefined();
  });

  it('keeps out whatever came through a proxy, naming the operator token', () => {
    for (const headers of [{ 'x-forwarded-for': '203.0.113.9' }, { forwarded: 'for=203.0.113.9' }, { via: '1.1 nginx' }])
      expect(tokenlessRefusal({ ...direct, headers: { ...direct.headers, ...headers } })).toMatch(/came through a proxy: set OPERATOR_TOKEN/);
    expect(tokenlessRefusal({ ...direct, behindProxy: true })).toMatch(/came through a proxy: set OPERATOR_TOKEN/);
  });

  it('keeps out a request sent to another name, a caller elsewhere, and every caller of an installation listening beyond loopback', () => {
    for (const host of ['pay.example.com', 'evil.example:3000', '127.0.0.1.evil.example', undefined])
      expect(tokenlessRefusal({ ...direct, headers: { host } }), String(host)).toMatch(/^Set OPERATOR_TOKEN/);
    expect(tokenlessRefusal({ ...direct, peer: '192.0.2.7' })).toMatch(/^Set OPERATOR_TOKEN/);
    expect(tokenlessRefusal({ ...direct, host: '0.0.0.0' })).toMatch(/^Set OPERATOR_TOKEN/);
  });
});

describe("a sandbox account's snapshots", () => {
  const limits = { perAccount: 3, bytesPerAccount: 1000 };

  it('are at most so many, and hold at most so many bytes together', () => {
    expect(noRoomForSnapshot(2, limits)).toBeUndefined();
    expect(noRoomForSnapshot(3, limits)).toBe('The account keeps 3 snapshots, the most SANDBOX_SNAPSHOTS_PER_ACCOUNT allows (3): delete one first');
    expect(snapshotsTooLarge(1000, limits)).toBeUndefined();
    expect(snapshotsTooLarge(1001, limits)).toMatch(/would hold 1001 bytes, more than SANDBOX_SNAPSHOT_BYTES_PER_ACCOUNT allows \(1000\)/);
  });
});
