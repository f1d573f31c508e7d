/**
 * The client's IP address for the sign-in throttle. The socket's peer, unless that peer is a trusted reverse
 * proxy (`[security] REVERSE_PROXY_TRUSTED_PROXIES`, Gitea's setting and default `127.0.0.0/8,::1/128`; `*`
 * trusts any peer): then `X-Forwarded-For` is read from the right, skipping further trusted proxies, and the
 * first address not trusted is the client. A header that does not parse leaves the peer as the client, so a
 * client can never choose its own address unless it connects from a trusted proxy.
 */
import { BlockList, isIP } from 'node:net';
import type { IncomingMessage } from 'node:http';

export type ClientAddressOf = (req: IncomingMessage) => string;

/** `::ffff:1.2.3.4` (an IPv4 peer on a dual-stack socket) → `1.2.3.4`; anything else as it is. */
function unmapped(address: string): string {
  const match = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return match === null ? address : match[1];
}

/** A matcher for the trusted proxies; entries were validated by the config lib. */
function trustedMatcher(entries: readonly string[]): (address: string) => boolean {
  if (entries.includes('*')) return () => true;
  const list = new BlockList();
  for (const entry of entries) {
    const [address, prefix] = entry.split('/');
    const family = isIP(address) === 4 ? 'ipv4' : 'ipv6';
    if (prefix === undefined) list.addAddress(address, family);
    else list.addSubnet(address, Number(prefix), family);
  }
  return (address) => {
    const family = isIP(address);
    return family !== 0 && list.check(address, family === 4 ? 'ipv4' : 'ipv6');
  };
}

export function createClientAddressOf(trustedProxies: readonly string[]): ClientAddressOf {
  const trusted = trustedMatcher(trustedProxies);
  return (req) => {
    const peer = unmapped(req.socket.remoteAddress ?? '');
    if (!trusted(peer)) return peer;
    const header = req.headers['x-forwarded-for'];
    const hops = (Array.isArray(header) ? header.join(',') : (header ?? ''))
      .split(',')
      .map((hop) => unmapped(hop.trim()))
      .filter((hop) => hop !== '');
    if (hops.length === 0 || !hops.every((hop) => isIP(hop) !== 0)) return peer;
    for (let i = hops.length - 1; i >= 0; i--) {
      if (!trusted(hops[i])) return hops[i];
    }
    // Every hop is a trusted proxy: the leftmost is as close to the client as can be known.
    return hops[0];
  };
}
