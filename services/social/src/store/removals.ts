/**
 * Removing every star and watch of a repository or of a user that no longer exists, with the counters they
 * moved. No event is published for them: the deletion event that caused the removal stands for them.
 */
import { sql, type DatabaseTransactionConnection } from '@cairn/db';
import { COUNTER_OF } from './counters';
import type { LinkTable } from './links';

const TABLES: readonly LinkTable[] = ['stars', 'watches'];

/** Forgets a deleted repository: its stars, its watches and its counters. */
export async function deleteRepoLinks(tx: DatabaseTransactionConnection, repoId: number): Promise<void> {
  for (const table of TABLES) await tx.query(sql.unsafe`DELETE FROM ${sql.identifier([table])} WHERE repo_id = ${repoId}`);
  await tx.query(sql.unsafe`DELETE FROM repo_counters WHERE repo_id = ${repoId}`);
}

/** Forgets a deleted user: their stars and watches, each taken off its repository's counter. */
export async function deleteUserLinks(tx: DatabaseTransactionConnection, userId: number): Promise<void> {
  for (const table of TABLES) {
    const counter = sql.identifier([COUNTER_OF[table]]);
    // A user links to a repository at most once, so each counter row is joined to one removed row.
    await tx.query(sql.unsafe`
      WITH removed AS (DELETE FROM ${sql.identifier([table])} WHERE user_id = ${userId} RETURNING repo_id)
      UPDATE repo_counters SET ${counter} = repo_counters.${counter} - 1
      FROM removed WHERE repo_counters.repo_id = removed.repo_id`);
  }
}
