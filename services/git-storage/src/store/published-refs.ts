/**
 * The `published_refs` ledger (each repository's branches and tags as its last cairn.git.pushed left them) and the
 * `pending_pushes` written before a push moves refs (db/migrations/0001_published_refs.sql).
 */
import { sql, z, type CommonQueryMethods, type DatabaseTransactionConnection } from '@cairn/db';
import type { RefState } from '../domain/published-refs';
import type { RefUpdate } from '../git/ref-update';
import type { RepositoryAddress } from '../storage/layout';

const ledgerRow = z.object({
  repo_id: z.number(),
  storage: z.string(),
  refs: z.record(z.string()),
  events: z.number(),
  repo_owner_id: z.number(),
  repo_private: z.boolean(),
});

export interface Ledger {
  repository: RepositoryAddress;
  refs: RefState;
  /** Events written so far. */
  events: number;
  repoOwnerId: number;
  repoPrivate: boolean;
}

const toLedger = (row: z.infer<typeof ledgerRow>): Ledger => ({
  repository: { storage: row.storage, repoId: row.repo_id },
  refs: row.refs,
  events: row.events,
  repoOwnerId: row.repo_owner_id,
  repoPrivate: row.repo_private,
});

/** The repository's ledger, locked until the transaction ends (its changes are published one writer at a time). */
export async function lockLedger(tx: DatabaseTransactionConnection, repoId: number): Promise<Ledger | undefined> {
  const row = await tx.maybeOne(sql.type(ledgerRow)`
    SELECT repo_id, storage, refs, events, repo_owner_id, repo_private FROM published_refs WHERE repo_id = ${repoId} FOR UPDATE`);
  return row === null ? undefined : toLedger(row);
}

/** Starts a repository's ledger at `ledger` unless another writer just did. */
export async function insertLedger(tx: DatabaseTransactionConnection, ledger: Ledger): Promise<void> {
  await tx.query(sql.unsafe`
    INSERT INTO published_refs (repo_id, storage, refs, events, repo_owner_id, repo_private)
    VALUES (${ledger.repository.repoId}, ${ledger.repository.storage}, ${sql.jsonb(ledger.refs)}, ${ledger.events},
            ${ledger.repoOwnerId}, ${ledger.repoPrivate})
    ON CONFLICT (repo_id) DO NOTHING`);
}

export async function updateLedger(tx: DatabaseTransactionConnection, ledger: Ledger): Promise<void> {
  await tx.query(sql.unsafe`
    UPDATE published_refs
    SET refs = ${sql.jsonb(ledger.refs)}, events = ${ledger.events}, repo_owner_id = ${ledger.repoOwnerId},
        repo_private = ${ledger.repoPrivate}, updated_at = now()
    WHERE repo_id = ${ledger.repository.repoId}`);
}

/** Forgets a repository that is no longer on disk (with its pending pushes). */
export async function deleteLedger(db: CommonQueryMethods, repoId: number): Promise<void> {
  await db.query(sql.unsafe`DELETE FROM published_refs WHERE repo_id = ${repoId}`);
}

/** The repositories that have a ledger, by id. */
export async function ledgerRepositories(db: CommonQueryMethods): Promise<RepositoryAddress[]> {
  const rows = await db.any(sql.type(z.object({ repo_id: z.number(), storage: z.string() }))`
    SELECT repo_id, storage FROM published_refs ORDER BY repo_id`);
  return rows.map((row) => ({ storage: row.storage, repoId: row.repo_id }));
}

const pendingRow = z.object({
  id: z.string(),
  repo_id: z.number(),
  pusher_id: z.number(),
  repo_owner_id: z.number(),
  repo_private: z.boolean(),
  ref_updates: z.array(z.object({ ref: z.string(), oldSha: z.string(), newSha: z.string() })),
});

export interface PendingPush {
  /** A UUIDv7, so ids sort in the order the pushes were accepted. */
  id: string;
  repoId: number;
  pusherId: number;
  repoOwnerId: number;
  repoPrivate: boolean;
  refUpdates: RefUpdate[];
}

const toPending = (row: z.infer<typeof pendingRow>): PendingPush => ({
  id: row.id,
  repoId: row.repo_id,
  pusherId: row.pusher_id,
  repoOwnerId: row.repo_owner_id,
  repoPrivate: row.repo_private,
  refUpdates: row.ref_updates,
});

export async function insertPendingPush(tx: DatabaseTransactionConnection, push: PendingPush): Promise<void> {
  const updates = push.refUpdates.map(({ ref, oldSha, newSha }) => ({ ref, oldSha, newSha }));
  await tx.query(sql.unsafe`
    INSERT INTO pending_pushes (id, repo_id, pusher_id, repo_owner_id, repo_private, ref_updates)
    VALUES (${push.id}, ${push.repoId}, ${push.pusherId}, ${push.repoOwnerId}, ${push.repoPrivate}, ${sql.jsonb(updates)})`);
}

/** Deletes and answers one pending push; undefined when it is gone (published already). */
export async function takePendingPush(tx: DatabaseTransactionConnection, id: string): Promise<PendingPush | undefined> {
  const row = await tx.maybeOne(sql.type(pendingRow)`
    DELETE FROM pending_pushes WHERE id = ${id} RETURNING id, repo_id, pusher_id, repo_owner_id, repo_private, ref_updates`);
  return row === null ? undefined : toPending(row);
}

/** Deletes and answers a repository's pending pushes, oldest first. */
export async function takePendingPushes(tx: DatabaseTransactionConnection, repoId: number): Promise<PendingPush[]> {
  const rows = await tx.any(sql.type(pendingRow)`
    DELETE FROM pending_pushes WHERE repo_id = ${repoId} RETURNING id, repo_id, pusher_id, repo_owner_id, repo_private, ref_updates`);
  return rows.map(toPending).sort((a, b) => a.id.localeCompare(b.id));
}
