import { describe, expect, it } from 'vitest';
import { addressScope, hostBeyondReach, nonPublicHostReason, reachOf } from '../../src/domain/network-address.js';

describe('address scope', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'private'],
    ['169.254.169.254', 'link-local'],
    ['0.0.0.0', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'reserved'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'link-local'],
    ['fd12:3456::1', 'private'],
    ['fc00::1', 'private'],
    ['ff02::1', 'multicast'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:a9fe:a9fe', 'link-local'],
    ['64:ff9b::10.0.0.1', 'private'],
    ['2002:c0a8:0101::1', 'private'],
    ['[::1]', 'loopback'],
  ])('%s is %s', (address, scope) => {
    expect(addressScope(address)).toBe(scope);
  });

  it.each(['8.8.8.8', '172.15.255.255', '172.32.0.1', '1.1.1.1', '2606:4700:4700::1111', '::ffff:8.8.8.8', '2a00:1450::1'])('%s is public', (address) => {
    expect(addressScope(address)).toBe('public');
  });

  it('is undefined for names', () => {
    expect(addressScope('example.com')).toBeUndefined();
    expect(addressScope('999.1.1.1')).toBeUndefined();
  });
});

describe('hosts a production account may not notify', () => {
  it('refuses non-public literals and localhost names', () => {
    expect(nonPublicHostReason('127.0.0.1')).toBe('is a loopback address');
    expect(nonPublicHostReason('[fe80::1]')).toBe('is a link-local address');
    expect(nonPublicHostReason('10.0.0.8')).toBe('is a private address');
    expect(nonPublicHostReason('localhost')).toMatch(/localhost/);
    expect(nonPublicHostReason('api.LOCALHOST.')).toMatch(/localhost/);
  });
  it('leaves public literals and names to be resolved', () => {
    expect(nonPublicHostReason('8.8.8.8')).toBeUndefined();
    expect(nonPublicHostReason('merchant.example')).toBeUndefined();
  });
});

describe('what a notification may reach', () => {
  it('is the public internet for production accounts; no link-local address for developer-mode ones unless the operator allows it', () => {
    expect(reachOf({ privateAllowed: false, linkLocalAllowed: true })).toBe('public');
    expect(reachOf({ privateAllowed: true, linkLocalAllowed: false })).toBe('private');
    expect(reachOf({ privateAllowed: true, linkLocalAllowed: true })).toBe('any');
  });

  it.each(['169.254.169.254', '[fe80::1]', '[fe80::a9fe:a9fe]', '[::ffff:169.254.169.254]', '[64:ff9b::a9fe:a9fe]'])(
    'refuses %s to a developer-mode account, and lets the operator allow it',
    (host) => {
      expect(hostBeyondReach(host, 'private')).toBe('is a link-local address');
      expect(hostBeyondReach(host, 'any')).toBeUndefined();
    },
  );

  it('lets a developer-mode account reach this machine and private networks', () => {
    for (const host of ['127.0.0.1', 'localhost', '10.0.0.8', '[::1]', 'metadata.example']) expect(hostBeyondReach(host, 'private')).toBeUndefined();
    expect(hostBeyondReach('127.0.0.1', 'public')).toBe('is a loopback address');
  });
});
