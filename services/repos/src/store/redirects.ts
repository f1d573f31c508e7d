/** The `repo_redirects` table: former owner/name pairs of repositories (Gitea's repo_redirect). */
import { sql, z, type CommonQueryMethods, type DatabaseTransactionConnection } from '@cairn/db';

/** The repository a former name of the owner leads to, if any. */
export async function findRedirect(db: CommonQueryMethods, ownerId: number, name: string): Promise<number | undefined> {
  const row = await db.maybeOne(sql.type(z.object({ redirect_repo_id: z.number() }))`
    SELECT redirect_repo_id FROM repo_redirects WHERE owner_id = ${ownerId} AND lower_name = ${name.toLowerCase()}
  `);
  return row?.redirect_repo_id;
}

/** Makes `ownerId`/`name` lead to the repository (replacing an older redirect of that name). */
export async function addRedirect(tx: DatabaseTransactionConnection, ownerId: number, name: string, repoId: number): Promise<void> {
  await tx.query(sql.unsafe`
    INSERT INTO repo_redirects (owner_id, lower_name, redirect_repo_id) VALUES (${ownerId}, ${name.toLowerCase()}, ${repoId})
    ON CONFLICT (owner_id, lower_name) DO UPDATE SET redirect_repo_id = EXCLUDED.redirect_repo_id
  `);
}

/** A repository now has the name: it no longer redirects anywhere. */
export async function deleteRedirect(tx: DatabaseTransactionConnection, ownerId: number, name: string): Promise<void> {
  await tx.query(sql.unsafe`DELETE FROM repo_redirects WHERE owner_id = ${ownerId} AND lower_name = ${name.toLowerCase()}`);
}
