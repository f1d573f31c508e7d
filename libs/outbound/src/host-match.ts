/**
 * Gitea's host-match lists (modules/hostmatcher/hostmatcher.go ParseHostMatchList): comma-separated entries, trimmed
 * and lower-cased, each a CIDR (`10.0.0.0/8`), a builtin class (`loopback`, `private`, `external`) or a wildcard
 * pattern (`*.example.com`, `*` for everything) matched against the host name and against the address as text.
 * Patterns are compiled once and run in linear time (libs/text's globs, no separators, as Go's filepath.Match sees a
 * host name).
 */
import { BlockList } from 'node:net';
import { globMatcher } from '@cairn/text';
import { canonicalAddress, classify } from './ip-classes';

const BUILTINS = ['loopback', 'private', 'external'] as const;
type Builtin = (typeof BUILTINS)[number];

export interface HostMatchList {
  /** The setting the list came from, named in refusals (`webhook.ALLOWED_HOST_LIST`). */
  readonly setting: string;
  readonly empty: boolean;
  /** A host name (or address literal, `host:port` allowed) an entry names. */
  matchHostName(host: string): boolean;
  /** An address an entry covers: a pattern of its text, a builtin class, a CIDR. */
  matchAddress(address: string): boolean;
  /** Gitea's MatchHostOrIP: the name requested, or the address actually connected to. */
  matchHostOrAddress(host: string, address: string): boolean;
}

function cidrOf(entry: string): { network: string; prefix: number; family: 'ipv4' | 'ipv6' } | undefined {
  const slash = entry.lastIndexOf('/');
  if (slash < 0) return undefined;
  const ip = canonicalAddress(entry.slice(0, slash));
  const prefixText = entry.slice(slash + 1);
  if (ip === undefined || !/^\d{1,3}$/.test(prefixText)) return undefined;
  const prefix = Number(prefixText);
  if (prefix > (ip.family === 'ipv4' ? 32 : 128)) return undefined;
  return { network: ip.address, prefix, family: ip.family };
}

function hostOf(host: string): string {
  const text = host.trim().toLowerCase();
  // `[::1]:443` and `example.com:8080` name their host; a bare IPv6 address has colons of its own.
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(text);
  if (bracketed !== null) return bracketed[1];
  const withPort = /^([^:]+):\d+$/.exec(text);
  return withPort !== null ? withPort[1] : text;
}

export function parseHostMatchList(setting: string, entries: readonly string[]): HostMatchList {
  const builtins = new Set<Builtin>();
  const networks = new BlockList();
  const patterns: Array<(text: string) => boolean> = [];
  let any = false;
  for (const raw of entries) {
    const entry = raw.trim().toLowerCase();
    if (entry === '') continue;
    any = true;
    const cidr = cidrOf(entry);
    if (cidr !== undefined) networks.addSubnet(cidr.network, cidr.prefix, cidr.family);
    else if ((BUILTINS as readonly string[]).includes(entry)) builtins.add(entry as Builtin);
    else patterns.push(globMatcher(entry, { separators: '', invalid: 'nothing' }));
  }
  const matchPattern = (text: string) => patterns.some((matches) => matches(text));
  const matchAddress = (address: string): boolean => {
    const ip = canonicalAddress(address);
    if (ip === undefined) return false;
    if (matchPattern(ip.address)) return true;
    const classes = classify(ip.address);
    if ([...builtins].some((builtin) => classes[builtin])) return true;
    return networks.check(ip.address, ip.family);
  };
  const matchHostName = (host: string): boolean => {
    const name = hostOf(host);
    if (matchPattern(name)) return true;
    return canonicalAddress(name) !== undefined && matchAddress(name);
  };
  return {
    setting,
    empty: !any,
    matchHostName,
    matchAddress,
    matchHostOrAddress: (host, address) => matchHostName(host) || matchAddress(address),
  };
}
