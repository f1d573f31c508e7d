/**
 * The address classes of Gitea's host-match lists (modules/hostmatcher/hostmatcher.go, Go's net.IP methods):
 * `loopback`, `private` (RFC 1918, RFC 4193) and `external` (global unicast, neither private nor reserved). An
 * IPv4-mapped IPv6 address (`::ffff:127.0.0.1`) is its IPv4 address, so no spelling of a local address passes as
 * external.
 */
import { BlockList, isIP, isIPv4 } from 'node:net';

function blockList(ranges: ReadonlyArray<readonly [string, number]>): BlockList {
  const list = new BlockList();
  for (const [network, prefix] of ranges) list.addSubnet(network, prefix, isIPv4(network) ? 'ipv4' : 'ipv6');
  return list;
}

const LOOPBACK = blockList([['127.0.0.0', 8], ['::1', 128]]);
const PRIVATE = blockList([['10.0.0.0', 8], ['172.16.0.0', 12], ['192.168.0.0', 16], ['fc00::', 7]]);
/** Go's IsGlobalUnicast says no: unspecified, loopback, multicast, link-local, the IPv4 broadcast address. */
const NOT_GLOBAL_UNICAST = blockList([
  ['0.0.0.0', 32], ['::', 128], ['127.0.0.0', 8], ['::1', 128], ['224.0.0.0', 4], ['ff00::', 8],
  ['169.254.0.0', 16], ['fe80::', 10], ['255.255.255.255', 32],
]);
/**
 * Gitea's reserved ranges (never external), plus `0.0.0.0/8` ("this network", which Linux connects to the local
 * host): Cairn refuses it where Go would call it global unicast.
 */
const RESERVED = blockList([
  ['0.0.0.0', 8], ['100.64.0.0', 10], ['168.63.129.16', 32], ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.88.99.0', 24],
  ['198.18.0.0', 15], ['198.51.100.0', 24], ['203.0.113.0', 24], ['100::', 64], ['64:ff9b::', 96], ['64:ff9b:1::', 48],
  ['2001::', 32], ['2001:10::', 28], ['2001:20::', 28], ['2001:db8::', 32], ['2002::', 16],
]);

/** The address in its canonical family: an IPv4-mapped IPv6 address as IPv4. Undefined when `text` is no address. */
export function canonicalAddress(text: string): { address: string; family: 'ipv4' | 'ipv6' } | undefined {
  const bare = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  const family = isIP(bare);
  if (family === 0) return undefined;
  if (family === 4) return { address: bare, family: 'ipv4' };
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(bare);
  if (mapped !== null && isIPv4(mapped[1])) return { address: mapped[1], family: 'ipv4' };
  return { address: bare.toLowerCase(), family: 'ipv6' };
}

export interface AddressClasses {
  loopback: boolean;
  private: boolean;
  external: boolean;
}

export function classify(text: string): AddressClasses {
  const ip = canonicalAddress(text);
  if (ip === undefined) return { loopback: false, private: false, external: false };
  const has = (list: BlockList) => list.check(ip.address, ip.family);
  const globalUnicast = !has(NOT_GLOBAL_UNICAST);
  const reserved = has(RESERVED);
  return {
    loopback: has(LOOPBACK),
    private: globalUnicast && !reserved && has(PRIVATE),
    external: globalUnicast && !reserved && !has(PRIVATE),
  };
}
