/**
 * cairn.git.pushed: one event per accepted change of references (a push, or an RPC that moves a ref). The refs live
 * on disk, not in the database, so they cannot share a transaction with the outbox; instead git-storage keeps, per
 * repository, the branches and tags as its last event left them (store/published-refs.ts), and every event is written
 * in the transaction that moves that ledger on. A change the ledger does not show yet is therefore never lost:
 * - an RPC publishes its move right after making it;
 * - a push is written down (pending_pushes) when the pre-receive check accepts it, before git moves a ref, and
 *   published once git has exited, whatever became of the call (the client may have gone after the refs moved);
 * - at start-up, `reconcilePushed` publishes what the ledgers miss: pushes written down but not published (the
 *   process died), then any other difference between a ledger and the disk, as a push by nobody (pusher 0).
 * Event ids derive from the repository, the ledger's event count and the change, so finding a change twice cannot
 * give two events.
 */
import { encodeEvent, enqueueEvent, uuidv7 } from '@cairn/bus';
import type { DatabaseTransactionConnection } from '@cairn/db';
import { GitPushed } from '@cairn/proto/cairn/git/v1/events';
import type { PushContext, Repository } from '@cairn/proto/cairn/git/v1/git_service';
import { CairnError } from '@cairn/rpc';
import {
  type RefState,
  baselineState,
  changesFrom,
  claimedChanges,
  pushedEventId,
  stateAfter,
  unpublishedChanges,
} from '../domain/published-refs';
import { PUSHABLE_REF_PREFIXES } from '../domain/pushable-refs';
import { runGit } from '../git/command';
import type { RefUpdate } from '../git/ref-update';
import { ZERO_SHA } from '../git/refs';
import { STAGING_PREFIX } from '../git/remote';
import type { GitStorageContext } from '../rpc/context';
import { type RepositoryAddress, repositoryPath } from '../storage/layout';
import { statIfExists } from '../storage/stat-if-exists';
import {
  type Ledger,
  deleteLedger,
  insertLedger,
  insertPendingPush,
  ledgerRepositories,
  lockLedger,
  publishedRefs,
  takePendingPush,
  takePendingPushes,
  updateLedger,
} from '../store/published-refs';
import { GitSubject } from './subjects';

type Publisher = Pick<GitStorageContext, 'root' | 'db'>;

export interface PushedInput {
  repository: Repository | undefined;
  push: PushContext;
  /** The refs that actually moved, in the order they were applied. Nothing is published when empty. */
  refUpdates: readonly RefUpdate[];
}

/**
 * Who an event names as pusher, the repository as the pusher saw it, and where the change came from (`origin`: ''
 * for a push, 'mirror' or 'migration' for RemoteService's fetch).
 */
type Pusher = Pick<PushContext, 'pusherId' | 'repoOwnerId' | 'repoPrivate'> & { origin: string };

/** The request's PushContext; INVALID_ARGUMENT without one (check before moving any ref). */
export function requirePush(push: PushContext | undefined): PushContext {
  if (push === undefined || push.pusherId <= 0) throw CairnError.invalid('push context with a pusher is required', { reason: 'push_required' });
  return push;
}

/**
 * Commits the update made reachable that no ref reached before it: reachable from the new tips, not from the old
 * tips nor from any ref the update left alone.
 */
export async function countNewCommits(gitDir: string, refUpdates: readonly RefUpdate[]): Promise<number> {
  const tips = refUpdates.map((update) => update.newSha).filter((sha) => sha !== ZERO_SHA);
  if (tips.length === 0) return 0;
  const moved = new Set(refUpdates.map((update) => update.ref));
  const { stdout } = await runGit(['for-each-ref', '--format=%(objectname) %(refname)'], { gitDir });
  const untouched = stdout
    .toString('utf8')
    .split('\n')
    // A fetch's staging refs hold the new commits already (git/remote.ts): they are not refs that reached them before.
    .filter((line) => line !== '' && !moved.has(line.slice(line.indexOf(' ') + 1)) && !line.slice(line.indexOf(' ') + 1).startsWith(STAGING_PREFIX))
    .map((line) => line.slice(0, line.indexOf(' ')));
  const before = [...refUpdates.map((update) => update.oldSha).filter((sha) => sha !== ZERO_SHA), ...untouched];
  // `^<sha>` rather than a `--not` line: git before 2.42 takes no options on stdin. --ignore-missing: an old value
  // found at start-up may have been pruned since the ref left it.
  const input = [...tips, ...before.map((sha) => `^${sha}`)].map((line) => `${line}\n`).join('');
  const counted = await runGit(['rev-list', '--count', '--ignore-missing', '--stdin'], { gitDir, stdin: input });
  return Number(counted.stdout.toString('utf8').trim());
}

/** The repository's directory and address; INVALID_ARGUMENT without one. */
function locate(root: string, repository: Repository | undefined): { gitDir: string; address: RepositoryAddress } {
  if (repository === undefined) throw CairnError.invalid('repository is required');
  return { gitDir: repositoryPath(root, repository), address: repository };
}

/** The branches and tags on disk. */
async function currentRefs(gitDir: string): Promise<RefState> {
  const { stdout } = await runGit(['for-each-ref', '--format=%(objectname) %(refname)', ...PUSHABLE_REF_PREFIXES], { gitDir });
  const refs: Record<string, string> = {};
  for (const line of stdout.toString('utf8').split('\n')) {
    const space = line.indexOf(' ');
    if (space > 0) refs[line.slice(space + 1)] = line.slice(0, space);
  }
  return refs;
}

/**
 * The repository's ledger, locked until `tx` ends. A repository without one starts from its refs on disk, with the
 * refs of `updates` at their old values (the change being published, or about to be made).
 */
async function openLedger(
  tx: DatabaseTransactionConnection,
  repository: RepositoryAddress,
  pusher: Pick<Pusher, 'repoOwnerId' | 'repoPrivate'>,
  updates: readonly RefUpdate[],
  gitDir: string,
): Promise<Ledger> {
  const existing = await lockLedger(tx, repository.repoId);
  if (existing !== undefined) return existing;
  const started: Ledger = { repository, events: 0, repoOwnerId: pusher.repoOwnerId, repoPrivate: pusher.repoPrivate };
  await insertLedger(tx, started, baselineState(await currentRefs(gitDir), updates));
  const locked = await lockLedger(tx, repository.repoId);
  if (locked === undefined) throw new Error(`the ledger of repository ${repository.repoId} vanished`);
  return locked;
}

/** Writes cairn.git.pushed for `changes` to the outbox and moves the ledger past them; nothing when there are none. */
async function writePushed(tx: DatabaseTransactionConnection, gitDir: string, ledger: Ledger, pusher: Pusher, changes: readonly RefUpdate[]): Promise<Ledger> {
  if (changes.length === 0) return ledger;
  const { repoId } = ledger.repository;
  const events = ledger.events + 1;
  const eventId = pushedEventId(repoId, events, changes);
  const pushedAt = new Date();
  const event: GitPushed = {
    meta: { eventId, occurredAt: pushedAt, actorId: pusher.pusherId, repoId },
    pusherId: pusher.pusherId,
    repoId,
    repoOwnerId: pusher.repoOwnerId,
    repoPrivate: pusher.repoPrivate,
    refUpdates: changes.map(({ ref, oldSha, newSha }) => ({ ref, oldSha, newSha })),
    commitCount: await countNewCommits(gitDir, changes),
    pushedAt,
    origin: pusher.origin,
  };
  await enqueueEvent(tx, { id: eventId, subject: GitSubject.pushed, data: encodeEvent(GitPushed, event) });
  const next: Ledger = { ...ledger, events, repoOwnerId: pusher.repoOwnerId, repoPrivate: pusher.repoPrivate };
  await updateLedger(tx, next, changes);
  return next;
}

/** Publishes `refUpdates`, which an RPC has just applied. */
export async function publishPushed(context: Publisher, input: PushedInput): Promise<void> {
  if (input.refUpdates.length === 0) return;
  const { gitDir, address } = locate(context.root, input.repository);
  await context.db.pool.transaction(async (tx) => {
    const ledger = await openLedger(tx, address, input.push, input.refUpdates, gitDir);
    const published = await publishedRefs(tx, address.repoId, input.refUpdates.map((update) => update.ref));
    await writePushed(tx, gitDir, ledger, { ...input.push, origin: '' }, changesFrom(published, input.refUpdates));
  });
}

/**
 * Writes down a push the pre-receive check accepted (or a fetch from a remote, with its `origin`), before git moves a
 * ref. Answers the id for `publishRecordedPush`.
 */
export async function recordPush(
  context: Publisher,
  repository: Repository | undefined,
  push: PushContext,
  updates: readonly RefUpdate[],
  origin = '',
): Promise<string> {
  const { gitDir, address } = locate(context.root, repository);
  const id = uuidv7();
  await context.db.pool.transaction(async (tx) => {
    await openLedger(tx, address, push, updates, gitDir);
    const { pusherId, repoOwnerId, repoPrivate } = push;
    await insertPendingPush(tx, { id, repoId: address.repoId, pusherId, repoOwnerId, repoPrivate, refUpdates: [...updates], origin });
  });
  return id;
}

/** Publishes the updates of a recorded push that took effect, once git is done with them. */
export async function publishRecordedPush(context: Publisher, repository: Repository | undefined, pushId: string): Promise<void> {
  const { gitDir, address } = locate(context.root, repository);
  await context.db.pool.transaction(async (tx) => {
    const ledger = await lockLedger(tx, address.repoId);
    const pending = await takePendingPush(tx, pushId);
    if (ledger === undefined || pending === undefined) return;
    const published = await publishedRefs(tx, address.repoId, pending.refUpdates.map((update) => update.ref));
    await writePushed(tx, gitDir, ledger, pending, claimedChanges(published, await currentRefs(gitDir), pending.refUpdates));
  });
}

/** Repositories compared at once at start-up: each is one `for-each-ref` and, rarely, an event. */
const RECONCILE_CONCURRENCY = 4;

/** reconcilePushed for one repository: answers how many events it wrote. */
async function reconcileRepository(context: Pick<GitStorageContext, 'root' | 'db'>, repository: RepositoryAddress): Promise<number> {
  const gitDir = repositoryPath(context.root, repository);
  if ((await statIfExists(gitDir)) === undefined) {
    await deleteLedger(context.db.pool, repository.repoId);
    return 0;
  }
  return context.db.pool.transaction(async (tx) => {
    let ledger = await lockLedger(tx, repository.repoId);
    if (ledger === undefined) return 0;
    const before = ledger.events;
    const current = await currentRefs(gitDir);
    let published = await publishedRefs(tx, repository.repoId);
    for (const pending of await takePendingPushes(tx, repository.repoId)) {
      const changes = claimedChanges(published, current, pending.refUpdates);
      ledger = await writePushed(tx, gitDir, ledger, pending, changes);
      published = stateAfter(published, changes);
    }
    const nobody: Pusher = { pusherId: 0, repoOwnerId: ledger.repoOwnerId, repoPrivate: ledger.repoPrivate, origin: '' };
    ledger = await writePushed(tx, gitDir, ledger, nobody, unpublishedChanges(published, current));
    return ledger.events - before;
  });
}

/**
 * Publishes, at start-up (before the service takes calls, so no push or RPC of its own is half done), the ref changes
 * whose event was never written: first each push written down but not published (in the order they were accepted),
 * then the rest of the difference between ledger and disk as one event by pusher 0 (git-storage cannot know who moved
 * a ref outside Cairn). Repositories no longer on disk are forgotten. A repository that fails is logged and left for
 * the next start. Answers how many events were written.
 */
export async function reconcilePushed(context: Pick<GitStorageContext, 'root' | 'db' | 'logger'>): Promise<number> {
  const queue = await ledgerRepositories(context.db.pool);
  let written = 0;
  const worker = async () => {
    for (let repository = queue.shift(); repository !== undefined; repository = queue.shift()) {
      try {
        written += await reconcileRepository(context, repository);
      } catch (error) {
        context.logger.error({ err: error, repo_id: repository.repoId }, 'could not compare the refs of a repository with its published state');
      }
    }
  };
  await Promise.all(Array.from({ length: RECONCILE_CONCURRENCY }, worker));
  if (written > 0) context.logger.warn({ events: written }, 'published ref changes whose cairn.git.pushed was missing');
  return written;
}
