/**
 * Which addresses production egress refuses (egress-address.ts, decision 0023): every refused range,
 * and every IPv6 spelling of a refused IPv4 address (mapped, translated, compatible in hex and
 * dotted form, NAT64, 6to4), so `::a9fe:a9fe` is the metadata service as much as 169.254.169.254.
 * Pure classification: nothing here opens a socket.
 *
 * Mutations tried (each fails the rows named):
 * - a range dropped from V4_RANGES: its rows (169.254/16: 2 link-local rows here and in egress.spec;
 *   100.64/10: the cgnat rows and `::6440:101`).
 * - embeddedIPv4 returning null (IPv6 forms judged as plain IPv6, as before issue 25): 26 rows, all
 *   but the dotted IPv4-mapped ones (BlockList maps those itself), and `::a9fe:a9fe` → null.
 * - 6to4 reading the first 32 bits instead of bits 16–47: the 6to4 rows.
 */
import { describe, expect, it } from '@jest/globals';
import { refusedAddress } from './egress-address.js';

describe('refusedAddress', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['::1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.254', 'private'],
    ['192.168.1.1', 'private'],
    ['fd12:3456::1', 'private'],
    ['fc00::1', 'private'],
    ['169.254.1.1', 'link-local'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['100.64.0.1', 'cgnat'],
    ['100.127.255.254', 'cgnat'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['169.254.169.254', 'metadata'],
    ['fd00:ec2::254', 'metadata'],
    ['fd00:ec2:0:0:0:0:0:254', 'metadata'],
    ['100.100.100.200', 'metadata'],
    ['224.0.0.1', 'multicast'],
    ['ff02::1', 'multicast'],
    ['255.255.255.255', 'reserved'],
    ['192.0.2.1', 'documentation'],
    ['2001:db8::1', 'documentation'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'teredo'],
    ['64:ff9b:1::a00:1', 'nat64'],
  ])('classifies %s as %s', (address, range) => {
    expect(refusedAddress(address)).toBe(range);
  });

  it.each([
    // IPv4-mapped, dotted and hex
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:169.254.169.254', 'metadata'],
    ['::ffff:a9fe:a9fe', 'metadata'],
    ['0:0:0:0:0:ffff:a9fe:a9fe', 'metadata'],
    // IPv4-translated (::ffff:0:0:0/96)
    ['::ffff:0:a9fe:a9fe', 'metadata'],
    ['::ffff:0:10.0.0.1', 'private'],
    // IPv4-compatible (deprecated ::/96), hex and dotted
    ['::a9fe:a9fe', 'metadata'],
    ['::169.254.169.254', 'metadata'],
    ['::7f00:1', 'loopback'],
    ['::10.0.0.1', 'private'],
    ['::6440:101', 'cgnat'],
    // NAT64 well-known prefix 64:ff9b::/96
    ['64:ff9b::a9fe:a9fe', 'metadata'],
    ['64:ff9b::169.254.169.254', 'metadata'],
    ['64:ff9b::a00:1', 'private'],
    ['64:FF9B::7F00:1', 'loopback'],
    // 6to4 2002:AABB:CCDD::/48 carries AA.BB.CC.DD
    ['2002:a9fe:a9fe::1', 'metadata'],
    ['2002:7f00:1::', 'loopback'],
    ['2002:c0a8:101:1::5', 'private'],
  ])('IPv6 form %s of a refused IPv4 address is refused as %s', (address, range) => {
    expect(refusedAddress(address)).toBe(range);
  });

  it.each([
    ['::8.8.8.8', 'ipv4-compatible'],
    ['::ffff:0:808:808', 'ipv4-translated'],
    ['64:ff9b::808:808', 'nat64'],
    ['2002:808:808::1', '6to4'],
  ])('the IPv6 form %s of a public address is still refused (%s: never a provider address we support)', (address, form) => {
    expect(refusedAddress(address)).toBe(form);
  });

  it.each(['8.8.8.8', '52.94.236.248', '100.63.255.255', '100.128.0.1', '172.32.0.1', '2606:4700::1111', '::ffff:52.94.236.248', '2600:1f18::1'])('lets the public address %s through', (address) => {
    expect(refusedAddress(address)).toBeNull();
  });

  it('refuses what is not an address', () => {
    expect(refusedAddress('api.samsara.com')).toBe('not an IP address');
  });
});
