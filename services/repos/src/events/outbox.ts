/**
 * Writes repos' events into the transactional outbox, in the transaction of the change they report; the relay
 * publishes them after commit. Each event's id is its outbox id, its JetStream message id and `meta.event_id`.
 */
import { encodeEvent, enqueueEvent, uuidv7, type EventEncoder } from '@cairn/bus';
import type { DatabaseTransactionConnection } from '@cairn/db';
import type { EventMeta } from '@cairn/proto/cairn/common/v1/common';
import {
  CollaboratorAdded,
  CollaboratorRemoved,
  CommitStatusCreated,
  RepoCreated,
  RepoDeleted,
  RepoForked,
  RepoRenamed,
  RepoTeamAdded,
  RepoTeamRemoved,
  RepoTransferRequested,
  RepoTransferred,
  RepoUpdated,
  ReleaseDeleted,
  ReleasePublished,
  ReleaseUpdated,
} from '@cairn/proto/cairn/repos/v1/events';
import type { Release } from '@cairn/proto/cairn/repos/v1/releases_service';
import { toRepository } from '../rpc/repository-message';
import type { StoredStatus } from '../store/commit-statuses';
import type { RepoRow } from '../store/repositories';
import { Subject } from './subjects';

type Tx = DatabaseTransactionConnection;

function enqueue<T>(tx: Tx, subject: string, type: EventEncoder<T>, ids: { actorId: number; repoId: number }, build: (meta: EventMeta) => T): Promise<string> {
  const id = uuidv7();
  const meta: EventMeta = { eventId: id, occurredAt: new Date(), actorId: ids.actorId, repoId: ids.repoId };
  return enqueueEvent(tx, { id, subject, data: encodeEvent(type, build(meta)) });
}

export function enqueueRepoCreated(tx: Tx, repo: RepoRow, actorId: number): Promise<string> {
  return enqueue(tx, Subject.repoCreated, RepoCreated, { actorId, repoId: repo.id }, (meta) => ({ meta, repository: toRepository(repo) }));
}

export function enqueueRepoUpdated(tx: Tx, repo: RepoRow, changed: readonly string[], actorId: number): Promise<string> {
  return enqueue(tx, Subject.repoUpdated, RepoUpdated, { actorId, repoId: repo.id }, (meta) => ({
    meta,
    repository: toRepository(repo),
    changed: [...changed],
  }));
}

export function enqueueRepoRenamed(tx: Tx, repo: RepoRow, oldName: string, actorId: number): Promise<string> {
  return enqueue(tx, Subject.repoRenamed, RepoRenamed, { actorId, repoId: repo.id }, (meta) => ({ meta, repository: toRepository(repo), oldName }));
}

export function enqueueRepoDeleted(tx: Tx, repo: RepoRow, actorId: number): Promise<string> {
  return enqueue(tx, Subject.repoDeleted, RepoDeleted, { actorId, repoId: repo.id }, (meta) => ({
    meta,
    repoId: repo.id,
    ownerId: repo.ownerId,
    ownerName: repo.ownerName,
    name: repo.name,
    private: repo.isPrivate,
  }));
}

export function enqueueRepoForked(tx: Tx, fork: RepoRow, actorId: number): Promise<string> {
  return enqueue(tx, Subject.repoForked, RepoForked, { actorId, repoId: fork.id }, (meta) => ({
    meta,
    repository: toRepository(fork),
    baseRepoId: fork.forkId,
  }));
}

export function enqueueRepoTransferRequested(tx: Tx, repo: RepoRow, transfer: { doerId: number; recipientId: number; teamIds: number[] }): Promise<string> {
  return enqueue(tx, Subject.repoTransferRequested, RepoTransferRequested, { actorId: transfer.doerId, repoId: repo.id }, (meta) => ({
    meta,
    repository: toRepository(repo),
    ...transfer,
  }));
}

export function enqueueRepoTransferred(tx: Tx, repo: RepoRow, oldOwner: { id: number; name: string }, actorId: number): Promise<string> {
  return enqueue(tx, Subject.repoTransferred, RepoTransferred, { actorId, repoId: repo.id }, (meta) => ({
    meta,
    repository: toRepository(repo),
    oldOwnerId: oldOwner.id,
    oldOwnerName: oldOwner.name,
  }));
}

export function enqueueCollaboratorAdded(tx: Tx, change: { repoId: number; userId: number; permission: string }, actorId: number): Promise<string> {
  return enqueue(tx, Subject.collaboratorAdded, CollaboratorAdded, { actorId, repoId: change.repoId }, (meta) => ({ meta, ...change }));
}

export function enqueueCollaboratorRemoved(tx: Tx, change: { repoId: number; userId: number }, actorId: number): Promise<string> {
  return enqueue(tx, Subject.collaboratorRemoved, CollaboratorRemoved, { actorId, repoId: change.repoId }, (meta) => ({ meta, ...change }));
}

/** A team linked to (`added`) or unlinked from a repository of its organization. */
export function enqueueRepoTeamChanged(tx: Tx, change: 'added' | 'removed', link: { orgId: number; teamId: number; repoId: number }, actorId: number): Promise<string> {
  const ids = { actorId, repoId: link.repoId };
  return change === 'added'
    ? enqueue(tx, Subject.repoTeamAdded, RepoTeamAdded, ids, (meta) => ({ meta, ...link }))
    : enqueue(tx, Subject.repoTeamRemoved, RepoTeamRemoved, ids, (meta) => ({ meta, ...link }));
}

export function enqueueCommitStatusCreated(tx: Tx, status: StoredStatus): Promise<string> {
  return enqueue(tx, Subject.commitStatusCreated, CommitStatusCreated, { actorId: status.creatorId, repoId: status.repoId }, (meta) => ({
    meta,
    repoId: status.repoId,
    sha: status.sha,
    context: status.context,
    state: status.state,
    index: status.index,
    targetUrl: status.targetUrl,
    description: status.description,
  }));
}

/** The three release messages have one shape (meta and release). */
const RELEASE_EVENTS: Readonly<Record<'published' | 'updated' | 'deleted', { subject: string; type: EventEncoder<ReleasePublished> }>> = {
  published: { subject: Subject.releasePublished, type: ReleasePublished },
  updated: { subject: Subject.releaseUpdated, type: ReleaseUpdated },
  deleted: { subject: Subject.releaseDeleted, type: ReleaseDeleted },
};

/** A published release was published, changed or deleted (`release` as it is now, or was before its deletion). */
export function enqueueReleaseEvent(tx: Tx, change: keyof typeof RELEASE_EVENTS, release: Release, actorId: number): Promise<string> {
  const { subject, type } = RELEASE_EVENTS[change];
  return enqueue(tx, subject, type, { actorId, repoId: release.repoId }, (meta) => ({ meta, release }));
}
