/**
 * Writes social's events into the transactional outbox, in the transaction of the change they report; the
 * outbox relay publishes them after commit. Each event's id is its outbox id, its JetStream message id and
 * `meta.event_id`; the user is the actor.
 */
import { encodeEvent, enqueueEvent, uuidv7, type EventEncoder } from '@cairn/bus';
import type { DatabaseTransactionConnection } from '@cairn/db';
import type { EventMeta } from '@cairn/proto/cairn/common/v1/common';
import { ReactionAdded, ReactionRemoved, StarAdded, StarRemoved, WatchAdded, WatchRemoved } from '@cairn/proto/cairn/social/v1/events';
import type { Link } from '../store/links';
import type { ReactionRow } from '../store/reactions';
import { Subject } from './subjects';

async function enqueue<T>(
  tx: DatabaseTransactionConnection,
  subject: string,
  type: EventEncoder<T>,
  link: Link,
  build: (meta: EventMeta) => T,
): Promise<string> {
  const id = uuidv7();
  const meta: EventMeta = { eventId: id, occurredAt: new Date(), actorId: link.userId, repoId: link.repoId };
  return enqueueEvent(tx, { id, subject, data: encodeEvent(type, build(meta)) });
}

export function enqueueStarAdded(tx: DatabaseTransactionConnection, link: Link, starsCount: number): Promise<string> {
  return enqueue(tx, Subject.starCreated, StarAdded, link, (meta) => ({ meta, ...link, starsCount }));
}

export function enqueueStarRemoved(tx: DatabaseTransactionConnection, link: Link, starsCount: number): Promise<string> {
  return enqueue(tx, Subject.starDeleted, StarRemoved, link, (meta) => ({ meta, ...link, starsCount }));
}

export function enqueueWatchAdded(tx: DatabaseTransactionConnection, link: Link, watchersCount: number): Promise<string> {
  return enqueue(tx, Subject.watchCreated, WatchAdded, link, (meta) => ({ meta, ...link, watchersCount }));
}

export function enqueueWatchRemoved(tx: DatabaseTransactionConnection, link: Link, watchersCount: number): Promise<string> {
  return enqueue(tx, Subject.watchDeleted, WatchRemoved, link, (meta) => ({ meta, ...link, watchersCount }));
}

/** The reaction's payload; its user is the actor and its repository the event's. */
function reactionPayload(reaction: ReactionRow, meta: EventMeta): ReactionAdded & ReactionRemoved {
  return { meta, issueId: reaction.issue_id, commentId: reaction.comment_id, userId: reaction.user_id, content: reaction.content };
}

export function enqueueReactionAdded(tx: DatabaseTransactionConnection, reaction: ReactionRow): Promise<string> {
  const link = { userId: reaction.user_id, repoId: reaction.repo_id };
  return enqueue(tx, Subject.reactionCreated, ReactionAdded, link, (meta) => reactionPayload(reaction, meta));
}

export function enqueueReactionRemoved(tx: DatabaseTransactionConnection, reaction: ReactionRow): Promise<string> {
  const link = { userId: reaction.user_id, repoId: reaction.repo_id };
  return enqueue(tx, Subject.reactionDeleted, ReactionRemoved, link, (meta) => reactionPayload(reaction, meta));
}
