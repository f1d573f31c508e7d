/**
 * RemoteService: git data from and to a remote address (migrations, pull and push mirrors; Gitea's
 * modules/repository/repo.go MigrateRepositoryGitData and services/mirror). git reaches the remote only through a
 * per-call forward proxy whose every connection the one guard checks with the `[migrations]` policy
 * (@cairn/outbound startOutboundProxy), so a refused host is never contacted.
 *
 * A fetch lands in a staging namespace first (refs/cairn-fetch/<id>/, hidden from clients by transfer.hideRefs);
 * the change is then written down with its `origin` (pending_pushes), applied as one compare-and-swap ref
 * transaction, and published as cairn.git.pushed — so a crash between the move and its event is published at the
 * next start with the right pusher and origin, as a push's is.
 */
import { uuidv7 } from '@cairn/bus';
import { type OutboundPolicy, type OutboundProxy, type Resolver, startOutboundProxy } from '@cairn/outbound';
import type { FetchRemoteRequest, PushContext, RemoteServiceService } from '@cairn/proto/cairn/git/v1/git_service';
import { type AsyncServiceOf, CairnError, Code } from '@cairn/rpc';
import type { RefState } from '../domain/published-refs';
import { PUSHABLE_REF_PREFIXES } from '../domain/pushable-refs';
import { remoteRefUpdates } from '../domain/remote-refs';
import { type RemoteTarget, isAuthenticationFailure, redact, remoteHeadBranch, remoteTarget } from '../domain/remote-url';
import { publishRecordedPush, recordPush, requirePush } from '../events/pushed';
import type { GitResult } from '../git/command';
import { runGit } from '../git/command';
import { openRepository } from '../git/open-repository';
import { type RefUpdate, updateRefs } from '../git/ref-update';
import { BRANCH_PREFIX, TAG_PREFIX } from '../git/refs';
import { REMOTE_NAME, STAGING_PREFIX, runRemoteGit } from '../git/remote';
import type { GitStorageContext } from './context';
import { fetchBundle } from './fetch-bundle';

/** What RemoteService needs beyond the node's git settings. */
export interface RemoteSettings {
  /** `migrationPolicy(config.migrations)`: what git may connect to. */
  policy: OutboundPolicy;
  /** `[git.timeout] MIGRATE`: a fetch's limit when the request names none. */
  migrateTimeoutMs: number;
  /** `[git.timeout] MIRROR`: a push's limit when the request names none. */
  mirrorTimeoutMs: number;
  /** Tests resolve names their own way. */
  resolver?: Resolver;
}

/** Until each connection to a remote is established. */
const CONNECT_TIMEOUT_MS = 30_000;

/** Attempts at applying a fetch when a concurrent push moves a ref in between. */
const APPLY_ATTEMPTS = 3;

/** Gitea's message when the migrations host policy refuses a remote (routers/api/v1/repo/migrate.go). */
const HOST_REFUSED = 'You can not import from disallowed hosts.';

/** Turns git's failure into the contract's error, without credentials; the proxy's refusals win. */
function failure(result: GitResult, proxy: OutboundProxy, target: RemoteTarget, reason: 'fetch_failed' | 'push_failed'): CairnError | undefined {
  if (proxy.refusals.length > 0) {
    return CairnError.denied(HOST_REFUSED, { reason: 'host_refused', cause: new Error(proxy.refusals.map((refusal) => refusal.message).join('; ')) });
  }
  if (result.exitCode === 0) return undefined;
  const message = redact(result.stderr.trim(), target) || `git exited with ${result.exitCode}`;
  return CairnError.precondition(message, { reason: isAuthenticationFailure(result.stderr) ? 'auth_failed' : reason });
}

/**
 * The refs under `prefix` (branches and tags, or the namespaces `wanted` names: `prefix` + refs/heads/…,
 * refs/tags/…), keyed by their name without it.
 */
export async function refsUnder(gitDir: string, prefix: string, wanted: readonly string[] = PUSHABLE_REF_PREFIXES): Promise<RefState> {
  const patterns = wanted.map((namespace) => `${prefix}${namespace}`);
  const { stdout } = await runGit(['for-each-ref', '--format=%(objectname) %(refname)', '--end-of-options', ...patterns], { gitDir });
  const refs: Record<string, string> = {};
  for (const line of stdout.toString('utf8').split('\n')) {
    const space = line.indexOf(' ');
    if (space > 0) refs[line.slice(space + 1 + prefix.length)] = line.slice(0, space);
  }
  return refs;
}

export async function deleteRefsUnder(gitDir: string, prefix: string): Promise<void> {
  const { stdout } = await runGit(['for-each-ref', '--format=delete %(refname)', '--end-of-options', prefix], { gitDir });
  if (stdout.length > 0) await runGit(['update-ref', '--stdin'], { gitDir, stdin: stdout });
}

/**
 * Moves the repository's branches and tags (or the namespaces `wanted` names) to `remote` (one compare-and-swap
 * transaction, retried when a push moved a ref meanwhile), publishing the change when `push` is set. Answers the
 * updates applied.
 */
export async function applyRemoteRefs(
  context: GitStorageContext,
  request: Pick<FetchRemoteRequest, 'repository' | 'prune' | 'origin'>,
  gitDir: string,
  remote: RefState,
  push: PushContext | undefined,
  wanted: readonly string[] = PUSHABLE_REF_PREFIXES,
): Promise<RefUpdate[]> {
  for (let attempt = 1; ; attempt++) {
    const updates = remoteRefUpdates(await refsUnder(gitDir, '', wanted), remote, request.prune);
    if (updates.length === 0) return [];
    const pushId = push === undefined ? undefined : await recordPush(context, request.repository, push, updates, request.origin);
    const result = await updateRefs(gitDir, updates);
    // Publishes what took effect (nothing when the transaction failed) and clears the record either way.
    if (pushId !== undefined) await publishRecordedPush(context, request.repository, pushId);
    if (result.ok) return updates;
    if (attempt >= APPLY_ATTEMPTS) {
      throw CairnError.precondition('the repository kept changing while the fetched references were applied; try again', {
        reason: 'fetch_failed',
        cause: new Error(result.stderr),
      });
    }
  }
}

export function createRemoteService(context: GitStorageContext): AsyncServiceOf<typeof RemoteServiceService> {
  const { remotes } = context;
  const withProxy = async <T>(use: (proxy: OutboundProxy) => Promise<T>): Promise<T> => {
    const proxy = await startOutboundProxy(remotes.policy, { connectTimeoutMs: CONNECT_TIMEOUT_MS, resolver: remotes.resolver });
    try {
      return await use(proxy);
    } finally {
      await proxy.close();
    }
  };

  return {
    async fetchRemote(request, ctx) {
      const target = remoteTarget(request.url, request.auth);
      const push = request.push === undefined ? undefined : requirePush(request.push);
      const gitDir = await openRepository(context.root, request.repository);
      const timeoutMs = request.timeoutSeconds > 0 ? request.timeoutSeconds * 1000 : remotes.migrateTimeoutMs;
      const deadline = Date.now() + timeoutMs;
      const staging = `${STAGING_PREFIX}${uuidv7()}/`;
      return withProxy(async (proxy) => {
        const remoteGit = (args: readonly string[]) =>
          runRemoteGit(args, { gitDir, url: target.url, proxyUrl: proxy.url, timeoutMs: Math.max(deadline - Date.now(), 1), signal: ctx.signal });
        const head = await remoteGit(['ls-remote', '--symref', '--end-of-options', REMOTE_NAME, 'HEAD']);
        const headFailure = failure(head, proxy, target, 'fetch_failed');
        if (headFailure !== undefined) throw headFailure;
        // Loose objects of a small fetch go where a concurrent gc's prune-packed could remove their directory.
        const endPush = await context.pushGc.beginPush(gitDir);
        try {
          const fetched = await remoteGit([
            'fetch',
            '--no-tags',
            '--no-write-fetch-head',
            '--end-of-options',
            REMOTE_NAME,
            `+${BRANCH_PREFIX}*:${staging}${BRANCH_PREFIX}*`,
            `+${TAG_PREFIX}*:${staging}${TAG_PREFIX}*`,
          ]);
          const fetchFailure = failure(fetched, proxy, target, 'fetch_failed');
          if (fetchFailure !== undefined) throw fetchFailure;
          // A fetch whose caller died (a migrations replica killed mid-import) is not applied: its task is taken over
          // and fetched again, and applying this one later would force refs back under the newer fetch or the pushes
          // made since, and publish the import a second time.
          if (ctx.signal.aborted) throw new CairnError(Code.CANCELLED, 'the caller went away; the fetch was not applied');
          const updated = await applyRemoteRefs(context, request, gitDir, await refsUnder(gitDir, staging), push);
          const branches = await runGit(['for-each-ref', '--count=1', '--format=%(refname)', BRANCH_PREFIX], { gitDir });
          return { updated, remoteHead: remoteHeadBranch(head.stdout.toString('utf8')), empty: branches.stdout.length === 0 };
        } finally {
          endPush();
          await deleteRefsUnder(gitDir, staging);
        }
      });
    },

    fetchBundle: (requests, ctx) => fetchBundle(context, requests, ctx),

    async pushRemote(request, ctx) {
      const target = remoteTarget(request.url, request.auth);
      const gitDir = await openRepository(context.root, request.repository);
      const timeoutMs = request.timeoutSeconds > 0 ? request.timeoutSeconds * 1000 : remotes.mirrorTimeoutMs;
      return withProxy(async (proxy) => {
        // Gitea's push mirror: branches and tags only, forced, and what the repository no longer has is deleted.
        const pushed = await runRemoteGit(
          ['push', '--prune', '--end-of-options', REMOTE_NAME, `+${BRANCH_PREFIX}*:${BRANCH_PREFIX}*`, `+${TAG_PREFIX}*:${TAG_PREFIX}*`],
          // A push whose caller died (a migrations replica killed mid-sync) stops: its mirror's lease lapses and the
          // next sync pushes the repository as it is then, not this older state later.
          { gitDir, url: target.url, proxyUrl: proxy.url, timeoutMs, signal: ctx.signal },
        );
        const pushFailure = failure(pushed, proxy, target, 'push_failed');
        if (pushFailure !== undefined) throw pushFailure;
        return {};
      });
    },
  };
}
