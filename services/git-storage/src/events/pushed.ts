/**
 * cairn.git.pushed: one event per accepted change of references (a push, or an RPC that moves a ref), written to
 * the outbox once the refs moved. The refs live on disk, not in the database, so the two cannot share a
 * transaction: a crash between them loses the event, never invents one.
 */
import { encodeEvent, enqueueEvent, uuidv7 } from '@cairn/bus';
import { GitPushed } from '@cairn/proto/cairn/git/v1/events';
import type { PushContext, Repository } from '@cairn/proto/cairn/git/v1/git_service';
import { CairnError } from '@cairn/rpc';
import { runGit } from '../git/command';
import type { RefUpdate } from '../git/ref-update';
import { ZERO_SHA } from '../git/refs';
import type { GitStorageContext } from '../rpc/context';
import { repositoryPath } from '../storage/layout';
import { GitSubject } from './subjects';

export interface PushedInput {
  repository: Repository | undefined;
  push: PushContext;
  /** The refs that actually moved, in the order they were applied. Nothing is published when empty. */
  refUpdates: readonly RefUpdate[];
}

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
    .filter((line) => line !== '' && !moved.has(line.slice(line.indexOf(' ') + 1)))
    .map((line) => line.slice(0, line.indexOf(' ')));
  const before = [...refUpdates.map((update) => update.oldSha).filter((sha) => sha !== ZERO_SHA), ...untouched];
  // `^<sha>` rather than a `--not` line: git before 2.42 takes no options on stdin.
  const input = [...tips, ...before.map((sha) => `^${sha}`)].map((line) => `${line}\n`).join('');
  const counted = await runGit(['rev-list', '--count', '--stdin'], { gitDir, stdin: input });
  return Number(counted.stdout.toString('utf8').trim());
}

/** Writes cairn.git.pushed for `refUpdates` to the outbox (the relay publishes it). */
export async function publishPushed(context: Pick<GitStorageContext, 'root' | 'db'>, input: PushedInput): Promise<void> {
  if (input.refUpdates.length === 0) return;
  const repoId = input.repository?.repoId ?? 0;
  const commitCount = await countNewCommits(repositoryPath(context.root, input.repository), input.refUpdates);
  const eventId = uuidv7();
  const pushedAt = new Date();
  const event: GitPushed = {
    meta: { eventId, occurredAt: pushedAt, actorId: input.push.pusherId, repoId },
    pusherId: input.push.pusherId,
    repoId,
    repoOwnerId: input.push.repoOwnerId,
    repoPrivate: input.push.repoPrivate,
    refUpdates: input.refUpdates.map(({ ref, oldSha, newSha }) => ({ ref, oldSha, newSha })),
    commitCount,
    pushedAt,
  };
  await context.db.pool.transaction((tx) => enqueueEvent(tx, { id: eventId, subject: GitSubject.pushed, data: encodeEvent(GitPushed, event) }));
}
