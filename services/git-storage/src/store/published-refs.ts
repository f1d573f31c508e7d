/**
 * The ledger of what git-storage published of each repository (`published_repositories`, and in `published_refs` its
 * branches and tags as its last cairn.git.pushed left them) and the `pending_pushes` written before a push moves refs
 * (db/migrations/0001_published_refs.sql).
 */
import { sql, z, type CommonQueryMethods, type DatabaseTransactionConnection } from '@cairn/db';
import type { RefState } from '../domain/published-refs';
import type { RefUpdate } from '../git/ref-update';
import { ZERO_SHA } from '../git/refs';
import type { RepositoryAddress } from '../storage/layout';

const ledgerRow = z.object({
  repo_id: z.number(),
  storage: z.string(),
  events: z.number(),
  repo_owner_id: z.number(),
  repo_private: z.boolean(),
});

/** A repository's row of `published_repositories`. */
export interface Ledger {
  repository: RepositoryAddress;
  /** Events written so far. */
  events: number;
  repoOwnerId: number;
  repoPrivate: boolean;
}

/** The repository's ledger, locked until the transaction ends (its changes are published one writer at a time). */
export async function lockLedger(tx: DatabaseTransactionConnection, repoId: number): Promise<Ledger | undefined> {
  const row = await tx.maybeOne(sql.type(ledgerRow)`
    SELECT repo_id, storage, events, repo_owner_id, repo_private FROM published_repositories WHERE repo_id = ${repoId} FOR UPDATE`);
  return row === null
    ? undefined
    : { repository: { storage: row.storage, repoId: row.repo_id }, events: row.events, repoOwnerId: row.repo_owner_id, repoPrivate: row.repo_private };
}

/** The published values of `refs` (every published ref when unset); a ref without one is absent. */
export async function publishedRefs(tx: DatabaseTransactionConnection, repoId: number, refs?: readonly string[]): Promise<RefState> {
  const only = refs === undefined ? sql.fragment`` : sql.fragment`AND ref = ANY(${sql.array([...refs], 'text')})`;
  const rows = await tx.any(sql.type(z.object({ ref: z.string(), sha: z.string() }))`
    SELECT ref, sha FROM published_refs WHERE repo_id = ${repoId} ${only}`);
  return Object.fromEntries(rows.map((row) => [row.ref, row.sha]));
}

/** Starts a repository's ledger at `refs` unless another writer just did. */
export async function insertLedger(tx: DatabaseTransactionConnection, ledger: Ledger, refs: RefState): Promise<void> {
  const { repoId, storage } = ledger.repository;
  const inserted = await tx.maybeOne(sql.type(z.object({ repo_id: z.number() }))`
    INSERT INTO published_repositories (repo_id, storage, events, repo_owner_id, repo_private)
    VALUES (${repoId}, ${storage}, ${ledger.events}, ${ledger.repoOwnerId}, ${ledger.repoPrivate})
    ON CONFLICT (repo_id) DO NOTHING RETURNING repo_id`);
  if (inserted !== null) await writeRefs(tx, repoId, refs);
}

/** Sets `refs` to their values. */
async function writeRefs(tx: DatabaseTransactionConnection, repoId: number, refs: RefState): Promise<void> {
  const entries = Object.entries(refs);
  if (entries.length === 0) return;
  await tx.query(sql.unsafe`
    INSERT INTO published_refs (repo_id, ref, sha)
    SELECT ${repoId}, ref, sha
    FROM unnest(${sql.array(entries.map(([ref]) => ref), 'text')}, ${sql.array(entries.map(([, sha]) => sha), 'text')}) AS t(ref, sha)
    ON CONFLICT (repo_id, ref) DO UPDATE SET sha = excluded.sha`);
}

/** Stores `ledger` and the published refs after `changes`. */
export async function updateLedger(tx: DatabaseTransactionConnection, ledger: Ledger, changes: readonly RefUpdate[]): Promise<void> {
  const { repoId } = ledger.repository;
  await tx.query(sql.unsafe`
    UPDATE published_repositories
    SET events = ${ledger.events}, repo_owner_id = ${ledger.repoOwnerId}, repo_private = ${ledger.repoPrivate}, updated_at = now()
    WHERE repo_id = ${repoId}`);
  const deleted = changes.filter((change) => change.newSha === ZERO_SHA).map((change) => change.ref);
  if (deleted.length > 0) {
    await tx.query(sql.unsafe`DELETE FROM published_refs WHERE repo_id = ${repoId} AND ref = ANY(${sql.array(deleted, 'text')})`);
  }
  await writeRefs(tx, repoId, Object.fromEntries(changes.filter((change) => change.newSha !== ZERO_SHA).map((change) => [change.ref, change.newSha])));
}

/** Forgets a repository that is no longer on disk (with its refs and pending pushes). */
export async function deleteLedger(db: CommonQueryMethods, repoId: number): Promise<void> {
  await db.query(sql.unsafe`DELETE FROM published_repositories WHERE repo_id = ${repoId}`);
}

/** The repositories that have a ledger, by id. */
export async function ledgerRepositories(db: CommonQueryMethods): Promise<RepositoryAddress[]> {
  const rows = await db.any(sql.type(z.object({ repo_id: z.number(), storage: z.string() }))`
    SELECT repo_id, storage FROM published_repositories ORDER BY repo_id`);
  return rows.map((row) => ({ storage: row.storage, repoId: row.repo_id }));
}

const pendingRow = z.object({
  id: z.string(),
  repo_id: z.number(),
  pusher_id: z.number(),
  repo_owner_id: z.number(),
  repo_private: z.boolean(),
  ref_updates: z.array(z.object({ ref: z.string(), oldSha: z.string(), newSha: z.string() })),
  origin: z.string(),
});

export interface PendingPush {
  /** A UUIDv7, so ids sort in the order the pushes were accepted. */
  id: string;
  repoId: number;
  pusherId: number;
  repoOwnerId: number;
  repoPrivate: boolean;
  refUpdates: RefUpdate[];
  /** cairn.git.pushed's `origin`: '' for a push, 'mirror' or 'migration' for a fetch from a remote. */
  origin: string;
}

const toPending = (row: z.infer<typeof pendingRow>): PendingPush => ({
  id: row.id,
  repoId: row.repo_id,
  pusherId: row.pusher_id,
  repoOwnerId: row.repo_owner_id,
  repoPrivate: row.repo_private,
  refUpdates: row.ref_updates,
  origin: row.origin,
});

export async function insertPendingPush(tx: DatabaseTransactionConnection, push: PendingPush): Promise<void> {
  const updates = push.refUpdates.map(({ ref, oldSha, newSha }) => ({ ref, oldSha, newSha }));
  await tx.query(sql.unsafe`
    INSERT INTO pending_pushes (id, repo_id, pusher_id, repo_owner_id, repo_private, ref_updates, origin)
    VALUES (${push.id}, ${push.repoId}, ${push.pusherId}, ${push.repoOwnerId}, ${push.repoPrivate}, ${sql.jsonb(updates)}, ${push.origin})`);
}

/** Deletes and answers one pending push; undefined when it is gone (published already). */
export async function takePendingPush(tx: DatabaseTransactionConnection, id: string): Promise<PendingPush | undefined> {
  const row = await tx.maybeOne(sql.type(pendingRow)`
    DELETE FROM pending_pushes WHERE id = ${id} RETURNING id, repo_id, pusher_id, repo_owner_id, repo_private, ref_updates, origin`);
  return row === null ? undefined : toPending(row);
}

/** Deletes and answers a repository's pending pushes, oldest first. */
export async function takePendingPushes(tx: DatabaseTransactionConnection, repoId: number): Promise<PendingPush[]> {
  const rows = await tx.any(sql.type(pendingRow)`
    DELETE FROM pending_pushes WHERE repo_id = ${repoId} RETURNING id, repo_id, pusher_id, repo_owner_id, repo_private, ref_updates, origin`);
  return rows.map(toPending).sort((a, b) => a.id.localeCompare(b.id));
}
