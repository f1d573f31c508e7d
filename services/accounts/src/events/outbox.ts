/**
 * Writes accounts' events into the transactional outbox, in the transaction of the change they report; the
 * outbox relay publishes them after commit. Each event's id is its outbox id, its JetStream message id and
 * `meta.event_id`.
 */
import { encodeEvent, enqueueEvent, uuidv7, type EventEncoder } from '@cairn/bus';
import type { DatabaseTransactionConnection } from '@cairn/db';
import type { AccessToken, User } from '@cairn/proto/cairn/accounts/v1/accounts_service';
import {
  AccessTokenCreated,
  AccessTokenDeleted,
  UserCreated,
  UserDeleted,
  UserRenamed,
  UserUpdated,
} from '@cairn/proto/cairn/accounts/v1/events';
import type { EventMeta } from '@cairn/proto/cairn/common/v1/common';
import { Subject } from './subjects';

/** Writes one event of `type` to the outbox in `tx`; its id is also `meta.event_id`. */
export async function enqueue<T>(
  tx: DatabaseTransactionConnection,
  subject: string,
  type: EventEncoder<T>,
  actorId: number,
  build: (meta: EventMeta) => T,
): Promise<string> {
  const id = uuidv7();
  const meta: EventMeta = { eventId: id, occurredAt: new Date(), actorId, repoId: 0 };
  return enqueueEvent(tx, { id, subject, data: encodeEvent(type, build(meta)) });
}

export function enqueueUserCreated(tx: DatabaseTransactionConnection, user: User, actorId: number): Promise<string> {
  return enqueue(tx, Subject.userCreated, UserCreated, actorId, (meta) => ({ meta, user }));
}

/**
 * `changed` names the fields (proto names, "password" for a new password, whose value is never sent); `version` is
 * the row's after the change (store/users.ts `version`).
 */
export function enqueueUserUpdated(
  tx: DatabaseTransactionConnection,
  user: User,
  changed: readonly string[],
  version: number,
  actorId: number,
): Promise<string> {
  return enqueue(tx, Subject.userUpdated, UserUpdated, actorId, (meta) => ({ meta, user, changed: [...changed], version }));
}

/** `version` is the row's after the rename (store/users.ts `version`). */
export function enqueueUserRenamed(
  tx: DatabaseTransactionConnection,
  user: User,
  rename: { oldLogin: string; version: number },
  actorId: number,
): Promise<string> {
  return enqueue(tx, Subject.userRenamed, UserRenamed, actorId, (meta) => ({ meta, user, ...rename }));
}

export function enqueueUserDeleted(
  tx: DatabaseTransactionConnection,
  user: { id: number; login: string; purge: boolean; created: Date },
  actorId: number,
): Promise<string> {
  return enqueue(tx, Subject.userDeleted, UserDeleted, actorId, (meta) => ({
    meta,
    userId: user.id,
    login: user.login,
    purge: user.purge,
    userCreated: user.created,
  }));
}

export function enqueueAccessTokenCreated(tx: DatabaseTransactionConnection, token: AccessToken, actorId: number): Promise<string> {
  return enqueue(tx, Subject.accessTokenCreated, AccessTokenCreated, actorId, (meta) => ({ meta, token }));
}

export function enqueueAccessTokenDeleted(
  tx: DatabaseTransactionConnection,
  token: { id: number; userId: number },
  actorId: number,
): Promise<string> {
  return enqueue(tx, Subject.accessTokenDeleted, AccessTokenDeleted, actorId, (meta) => ({
    meta,
    tokenId: token.id,
    userId: token.userId,
  }));
}
