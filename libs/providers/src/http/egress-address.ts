/**
 * Which addresses production provider requests may connect to (decision 0023, egress.ts). An
 * address is refused when it is in a refused IPv4 or IPv6 range, or when it is an IPv6 spelling of
 * a refused IPv4 address: IPv4-mapped `::ffff:a.b.c.d`, IPv4-translated `::ffff:0:a.b.c.d`,
 * IPv4-compatible `::a.b.c.d` (hex or dotted: `::a9fe:a9fe` is 169.254.169.254), NAT64
 * `64:ff9b::/96` and 6to4 `2002::/16` (IPv4 in bits 16–47). Such a form is named by the range its
 * IPv4 address is in (`::a9fe:a9fe` → `metadata`); the deprecated IPv4-compatible form, NAT64
 * (both prefixes) and 6to4 are refused whatever they embed, since a provider host never resolves to
 * one for a deployment we support (an IPv6-only cluster behind DNS64 is not one; decision 0023).
 */
import { BlockList, isIP } from 'node:net';

type Range = readonly [network: string, prefix: number, name: string];

/** Known cloud metadata endpoints (AWS, ECS, Alibaba, Oracle, AWS IPv6), named before their ranges. */
const METADATA_V4 = new Set(['169.254.169.254', '169.254.170.2', '100.100.100.200', '192.0.0.192']);
const METADATA_V6 = ['fd00:ec2::254'];

const V4_RANGES: readonly Range[] = [
  ['0.0.0.0', 8, 'unspecified'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'cgnat'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'special-purpose'],
  ['192.0.2.0', 24, 'documentation'],
  ['192.88.99.0', 24, '6to4'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'benchmarking'],
  ['198.51.100.0', 24, 'documentation'],
  ['203.0.113.0', 24, 'documentation'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved'],
];

/** IPv6 ranges judged as such (the embedded-IPv4 forms are judged by their IPv4 address, below). */
const V6_RANGES: readonly Range[] = [
  ['::', 128, 'unspecified'],
  ['::1', 128, 'loopback'],
  ['64:ff9b:1::', 48, 'nat64'], // local-use NAT64 (RFC 8215): where the IPv4 sits depends on the operator's prefix
  ['100::', 64, 'discard'],
  ['2001::', 32, 'teredo'], // the client's IPv4 is inside, obfuscated
  ['2001:db8::', 32, 'documentation'],
  ['fc00::', 7, 'private'],
  ['fe80::', 10, 'link-local'],
  ['ff00::', 8, 'multicast'],
];

function blockLists(ranges: readonly Range[], type: 'ipv4' | 'ipv6') {
  return ranges.map(([network, prefix, name]) => {
    const list = new BlockList();
    list.addSubnet(network, prefix, type);
    return { list, name };
  });
}
const v4Lists = blockLists(V4_RANGES, 'ipv4');
const v6Lists = blockLists(V6_RANGES, 'ipv6');

/** The eight 16-bit groups of a valid IPv6 address (zone id dropped, a trailing dotted quad folded into two groups). */
function ipv6Groups(address: string): number[] {
  let text = address.toLowerCase().replace(/%.*$/, '');
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number);
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const groups = (part: string) => (part ? part.split(':').map((g) => parseInt(g, 16)) : []);
  const [head, tail] = text.split('::');
  if (tail === undefined) return groups(head);
  const h = groups(head);
  const t = groups(tail);
  return [...h, ...new Array<number>(8 - h.length - t.length).fill(0), ...t];
}

const fullForm = (groups: readonly number[]) => groups.map((g) => g.toString(16)).join(':');
const metadataV6 = new Set(METADATA_V6.map((a) => fullForm(ipv6Groups(a))));
const dottedQuad = (hi: number, lo: number) => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;

/** The IPv4 address an IPv6 address spells, with the form's name, or null. */
function embeddedIPv4(g: readonly number[]): { form: string; ipv4: string } | null {
  const zero = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  if (zero(0, 5) && g[5] === 0xffff) return { form: 'ipv4-mapped', ipv4: dottedQuad(g[6], g[7]) };
  if (zero(0, 4) && g[4] === 0xffff && g[5] === 0) return { form: 'ipv4-translated', ipv4: dottedQuad(g[6], g[7]) };
  if (zero(0, 6)) return { form: 'ipv4-compatible', ipv4: dottedQuad(g[6], g[7]) };
  if (g[0] === 0x64 && g[1] === 0xff9b && zero(2, 6)) return { form: 'nat64', ipv4: dottedQuad(g[6], g[7]) };
  if (g[0] === 0x2002) return { form: '6to4', ipv4: dottedQuad(g[1], g[2]) };
  return null;
}

function refusedIPv4(address: string): string | null {
  if (METADATA_V4.has(address)) return 'metadata';
  return v4Lists.find(({ list }) => list.check(address, 'ipv4'))?.name ?? null;
}

/**
 * Why `address` may not be reached from production, or null when it is public. One name for the
 * range (`private`, `metadata`, `nat64` …), which the refusal message carries.
 */
export function refusedAddress(address: string): string | null {
  const family = isIP(address);
  if (family === 0) return 'not an IP address';
  if (family === 4) return refusedIPv4(address);
  const groups = ipv6Groups(address);
  const full = fullForm(groups);
  if (metadataV6.has(full)) return 'metadata';
  const range = v6Lists.find(({ list }) => list.check(full, 'ipv6'))?.name;
  if (range) return range;
  const embedded = embeddedIPv4(groups);
  if (!embedded) return null;
  return refusedIPv4(embedded.ipv4) ?? (embedded.form === 'ipv4-mapped' ? null : embedded.form);
}
