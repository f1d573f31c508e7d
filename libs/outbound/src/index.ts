/**
 * Outbound requests to addresses users choose (webhooks, migrations, mirrors), through one guard with Gitea's
 * host-match lists.
 */
export { type AddressClasses, canonicalAddress, classify } from './ip-classes';
export { type HostMatchList, parseHostMatchList } from './host-match';
export { type OutboundConnectOptions, outboundConnect } from './connect';
export {
  type OutboundPolicy,
  type OutboundRequest,
  type OutboundResponse,
  type OutboundStreamResponse,
  OutboundRefusedError,
  type Resolver,
  guardedLookup,
  isAllowed,
  outboundRequest,
  outboundStream,
} from './guard';
export { type MigrationHostSettings, checkRemoteHost, migrationPolicy } from './migrations';
export { type OutboundProxy, type OutboundProxyOptions, startOutboundProxy } from './proxy';
export { type GuardedGitOptions, guardedGitEnvironment } from './git-remote';
