/**
 * The `[migrations]` host policy (Gitea's services/migrations/migrate.go Init and IsMigrateURLAllowed,
 * modules/hostmatcher): `ALLOWED_DOMAINS` (wildcard patterns; empty means the builtin `external`),
 * `ALLOW_LOCALNETWORKS` adding `private` and `loopback`, `BLOCKED_DOMAINS` winning over both. Gitea uses the same
 * checker for imports, pull mirrors and push mirrors, and so does Cairn.
 */
import { parseHostMatchList } from './host-match';
import { type OutboundPolicy, OutboundRefusedError, type Resolver, isAllowed, systemResolver } from './guard';
import { canonicalAddress } from './ip-classes';

export interface MigrationHostSettings {
  allowedDomains: readonly string[];
  blockedDomains: readonly string[];
  allowLocalnetworks: boolean;
}

export function migrationPolicy(settings: MigrationHostSettings): OutboundPolicy {
  const allowed = settings.allowedDomains.filter((entry) => entry.trim() !== '');
  const allow = [...(allowed.length > 0 ? allowed : ['external']), ...(settings.allowLocalnetworks ? ['private', 'loopback'] : [])];
  return {
    usage: 'migrations',
    allow: parseHostMatchList('migrations.ALLOWED_DOMAINS', allow),
    block: parseHostMatchList('migrations.BLOCKED_DOMAINS', settings.blockedDomains),
  };
}

/**
 * Checks a remote's host before anything is created for it (Gitea checks the clone address before the repository
 * exists): allowed when its name or one of its addresses is allowed and neither its name nor any address is blocked.
 * A name that does not resolve has no address, so only a name pattern can allow it. The connection itself is
 * checked again by the guard, on the address it uses. Throws OutboundRefusedError.
 */
export async function checkRemoteHost(policy: OutboundPolicy, host: string, resolver: Resolver = systemResolver): Promise<void> {
  // URL.hostname keeps an IPv6 literal's brackets.
  const literal = canonicalAddress(host.replace(/^\[(.*)\]$/, '$1'));
  const addresses =
    literal !== undefined ? [literal.address] : await resolver(host).then((found) => found.map((entry) => entry.address), () => [] as string[]);
  const blocked = policy.block !== undefined && (policy.block.matchHostName(host) || addresses.some((address) => policy.block?.matchAddress(address) === true));
  const allowed = policy.allow.matchHostName(host) || addresses.some((address) => isAllowed(policy, host, address));
  if (blocked || !allowed) throw new OutboundRefusedError(host, addresses.join(',') || 'no address', policy);
}
