/**
 * The `repo_purges` table (migration 0003): git data to remove from git-storage once the transaction that decided it
 * has committed. Deletions write a row due at once; creations reserve their id with a row due after the creation's
 * deadline, and take the row back in the transaction that inserts the repository.
 */
import { sql, z, type CommonQueryMethods, type DatabaseTransactionConnection } from '@cairn/db';

/** A repository's place in git-storage (its storage name, '' for the default, and id). */
export interface GitAddress {
  storage: string;
  repoId: number;
}

const purgeRow = z.object({ repo_id: z.number(), storage: z.string() });

const toAddress = (row: z.infer<typeof purgeRow>): GitAddress => ({ storage: row.storage, repoId: row.repo_id });

/** The repository's git data goes once `tx` commits (an existing row for the id is kept as it is). */
export async function schedulePurge(tx: DatabaseTransactionConnection, repository: GitAddress): Promise<void> {
  await tx.query(sql.unsafe`
    INSERT INTO repo_purges (repo_id, storage, not_before) VALUES (${repository.repoId}, ${repository.storage}, now())
    ON CONFLICT (repo_id) DO NOTHING
  `);
}

/**
 * A new repository id, with its git data (none yet) due for removal after `graceMs` unless the creating transaction
 * takes the reservation back (`claimReservation`). Committed on its own, before git-storage makes anything.
 */
export async function reserveRepositoryId(db: CommonQueryMethods, graceMs: number): Promise<GitAddress> {
  const row = await db.one(sql.type(purgeRow)`
    INSERT INTO repo_purges (repo_id, storage, not_before)
    VALUES (nextval(pg_get_serial_sequence('repositories', 'id')), '', now() + ${graceMs}::bigint * interval '1 millisecond')
    RETURNING repo_id, storage
  `);
  return toAddress(row);
}

/**
 * Takes a reservation back in the transaction that inserts its repository; false when it is gone (the purger took
 * it: the creation outlived its deadline). The deleted row stays locked until `tx` ends, so the purger skips it.
 */
export async function claimReservation(tx: DatabaseTransactionConnection, repoId: number): Promise<boolean> {
  const result = await tx.query(sql.unsafe`DELETE FROM repo_purges WHERE repo_id = ${repoId}`);
  return result.rowCount === 1;
}

/**
 * Locks one purge for `tx`: the given repository's (due or not: its creation is over), or else the one due longest.
 * Rows another transaction holds are skipped, so purgers on several replicas never remove the same data at once.
 */
export async function lockPurge(tx: DatabaseTransactionConnection, repoId?: number): Promise<GitAddress | undefined> {
  const which = repoId === undefined ? sql.fragment`not_before <= now()` : sql.fragment`repo_id = ${repoId}`;
  const row = await tx.maybeOne(sql.type(purgeRow)`
    SELECT repo_id, storage FROM repo_purges WHERE ${which} ORDER BY not_before LIMIT 1 FOR UPDATE SKIP LOCKED
  `);
  return row === null ? undefined : toAddress(row);
}

export async function finishPurge(tx: DatabaseTransactionConnection, repoId: number): Promise<void> {
  await tx.query(sql.unsafe`DELETE FROM repo_purges WHERE repo_id = ${repoId}`);
}

/** Counts a failed removal and puts the next try off: 2, 4, 8 … seconds, at most `maxDelayMs`. Answers the attempts. */
export async function postponePurge(tx: DatabaseTransactionConnection, repoId: number, maxDelayMs: number): Promise<number> {
  return tx.oneFirst(sql.type(z.object({ attempts: z.number() }))`
    UPDATE repo_purges
    SET attempts = attempts + 1,
        not_before = now() + least(power(2, least(attempts + 1, 30)) * 1000, ${maxDelayMs}) * interval '1 millisecond'
    WHERE repo_id = ${repoId}
    RETURNING attempts
  `);
}
