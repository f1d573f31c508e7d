/**
 * The `user_redirects` table: old names of renamed accounts (users and organizations alike) → the account,
 * kept as Gitea keeps them (models/user/redirect.go). A name is either an account's or a redirect, never both:
 * whatever takes a name (a new account, a rename) releases its redirect.
 */
import { sql, z, type CommonQueryMethods, type DatabaseTransactionConnection } from '@cairn/db';

/** Removes the redirect of `name`, if any: an account is taking the name. */
export async function releaseName(tx: DatabaseTransactionConnection, name: string): Promise<void> {
  await tx.query(sql.unsafe`DELETE FROM user_redirects WHERE lower_name = ${name.toLowerCase()}`);
}

/**
 * Records that `oldName` now leads to account `id` after its rename to `newName` (Gitea's NewUserRedirect):
 * the new name's redirect is released and the old name's, if another account's, replaced.
 */
export async function recordRedirect(tx: DatabaseTransactionConnection, id: number, oldName: string, newName: string): Promise<void> {
  await releaseName(tx, newName);
  await tx.query(sql.unsafe`
    INSERT INTO user_redirects (lower_name, redirect_user_id) VALUES (${oldName.toLowerCase()}, ${id})
    ON CONFLICT (lower_name) DO UPDATE SET redirect_user_id = EXCLUDED.redirect_user_id
  `);
}

/** The account an old name leads to, or null. */
export function findRedirect(db: CommonQueryMethods, name: string): Promise<number | null> {
  return db.maybeOneFirst(
    sql.type(z.object({ redirect_user_id: z.number() }))`SELECT redirect_user_id FROM user_redirects WHERE lower_name = ${name.toLowerCase()}`,
  );
}
