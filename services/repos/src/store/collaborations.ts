/** The `collaborations` table: users given a mode (read, write, admin) on a repository. */
import { sql, z, type CommonQueryMethods, type DatabaseTransactionConnection } from '@cairn/db';
import type { AccessMode } from '../domain/access';

const modeRow = z.object({ repo_id: z.number(), user_id: z.number(), mode: z.number() });

/** The user's collaboration mode on the repository; undefined when not a collaborator. */
export async function findCollaboration(db: CommonQueryMethods, repoId: number, userId: number): Promise<AccessMode | undefined> {
  const row = await db.maybeOne(sql.type(modeRow)`
    SELECT repo_id, user_id, mode FROM collaborations WHERE repo_id = ${repoId} AND user_id = ${userId}
  `);
  return row === null ? undefined : (row.mode as AccessMode);
}

/** The user's collaboration modes on the given repositories, by repository id. */
export async function collaborationsOf(db: CommonQueryMethods, userId: number, repoIds: readonly number[]): Promise<Map<number, AccessMode>> {
  if (repoIds.length === 0 || userId <= 0) return new Map();
  const rows = await db.any(sql.type(modeRow)`
    SELECT repo_id, user_id, mode FROM collaborations
    WHERE user_id = ${userId} AND repo_id = ANY(${sql.array([...repoIds], 'int8')})
  `);
  return new Map(rows.map((row) => [row.repo_id, row.mode as AccessMode]));
}

/** Adds the collaborator or changes their mode. */
export async function upsertCollaboration(tx: DatabaseTransactionConnection, repoId: number, userId: number, mode: AccessMode): Promise<void> {
  await tx.query(sql.unsafe`
    INSERT INTO collaborations (repo_id, user_id, mode) VALUES (${repoId}, ${userId}, ${mode})
    ON CONFLICT (repo_id, user_id) DO UPDATE SET mode = EXCLUDED.mode, updated = now()
  `);
}

/** Whether a collaboration was removed. */
export async function deleteCollaboration(tx: DatabaseTransactionConnection, repoId: number, userId: number): Promise<boolean> {
  const result = await tx.query(sql.unsafe`DELETE FROM collaborations WHERE repo_id = ${repoId} AND user_id = ${userId}`);
  return result.rowCount > 0;
}

const collaboratorRow = z.object({ user_id: z.number(), mode: z.number() });

/** Every collaborator of the repository (ordering by name is the caller's: names live in accounts). */
export async function listCollaborations(db: CommonQueryMethods, repoId: number): Promise<{ userId: number; mode: AccessMode }[]> {
  const rows = await db.any(sql.type(collaboratorRow)`
    SELECT user_id, mode FROM collaborations WHERE repo_id = ${repoId} ORDER BY user_id
  `);
  return rows.map((row) => ({ userId: row.user_id, mode: row.mode as AccessMode }));
}
