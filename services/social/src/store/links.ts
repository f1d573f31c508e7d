/**
 * The `stars` and `watches` tables, which have the same shape (a user, a repository, since when; watches also
 * say how the watch came about): adding, finding, removing and listing a user's link to a repository.
 */
import { sql, z, type CommonQueryMethods, type DatabaseTransactionConnection } from '@cairn/db';
import type { PageWindow } from '../domain/paging';

export type LinkTable = 'stars' | 'watches';

/** How a watch came about (the `watches.mode` column). */
export type WatchMode = 'normal' | 'auto';

const createdRow = z.object({ created: z.date() });

export interface Link {
  userId: number;
  repoId: number;
}

/**
 * Stars the repository unless the user did already: when, or null when the star existed (a concurrent twin
 * waits for the first, then adds nothing).
 */
export async function insertStar(tx: DatabaseTransactionConnection, link: Link): Promise<Date | null> {
  const row = await tx.maybeOne(sql.type(createdRow)`
    INSERT INTO stars (user_id, repo_id) VALUES (${link.userId}, ${link.repoId}) ON CONFLICT DO NOTHING RETURNING created`);
  return row?.created ?? null;
}

/** Watches the repository unless the user does already: when, or null when the watch existed. */
export async function insertWatch(tx: DatabaseTransactionConnection, link: Link, mode: WatchMode): Promise<Date | null> {
  const row = await tx.maybeOne(sql.type(createdRow)`
    INSERT INTO watches (user_id, repo_id, mode) VALUES (${link.userId}, ${link.repoId}, ${mode}) ON CONFLICT DO NOTHING RETURNING created`);
  return row?.created ?? null;
}

/** Makes an existing watch one the user chose (`normal`), and answers when it began; null when there is none. */
export async function chooseWatch(tx: DatabaseTransactionConnection, link: Link): Promise<Date | null> {
  const row = await tx.maybeOne(sql.type(createdRow)`
    UPDATE watches SET mode = 'normal' WHERE user_id = ${link.userId} AND repo_id = ${link.repoId} RETURNING created`);
  return row?.created ?? null;
}

/** When the user made the link, or null when there is none. */
export async function findLink(db: CommonQueryMethods, table: LinkTable, link: Link): Promise<Date | null> {
  const row = await db.maybeOne(sql.type(createdRow)`
    SELECT created FROM ${sql.identifier([table])} WHERE user_id = ${link.userId} AND repo_id = ${link.repoId}`);
  return row?.created ?? null;
}

/** Removes the link; false when there was none. */
export async function deleteLink(tx: DatabaseTransactionConnection, table: LinkTable, link: Link): Promise<boolean> {
  const result = await tx.query(sql.unsafe`
    DELETE FROM ${sql.identifier([table])} WHERE user_id = ${link.userId} AND repo_id = ${link.repoId}`);
  return result.rowCount > 0;
}

const userIdRow = z.object({ user_id: z.number() });

/** The users linked to a repository, oldest link first (ties by user id); `window` undefined lists them all. */
export async function listLinkedUsers(db: CommonQueryMethods, table: LinkTable, repoId: number, window: PageWindow | undefined): Promise<number[]> {
  const paging = window === undefined ? sql.fragment`` : sql.fragment`LIMIT ${window.limit} OFFSET ${window.offset}`;
  const rows = await db.any(sql.type(userIdRow)`
    SELECT user_id FROM ${sql.identifier([table])} WHERE repo_id = ${repoId} ORDER BY created, user_id ${paging}`);
  return rows.map((row) => row.user_id);
}

const repoIdRow = z.object({ repo_id: z.number() });

/** Every repository the user is linked to, newest link first (ties by repository id, highest first). */
export async function listLinkedRepos(db: CommonQueryMethods, table: LinkTable, userId: number): Promise<number[]> {
  const rows = await db.any(sql.type(repoIdRow)`
    SELECT repo_id FROM ${sql.identifier([table])} WHERE user_id = ${userId} ORDER BY created DESC, repo_id DESC`);
  return rows.map((row) => row.repo_id);
}

const starredRow = z.object({ user_id: z.number(), repo_ids: z.array(z.number()) });

/** The repositories each of `userIds` starred, newest first; users without stars are absent. */
export async function listStarredReposOf(db: CommonQueryMethods, userIds: readonly number[]): Promise<Map<number, number[]>> {
  const rows = await db.any(sql.type(starredRow)`
    SELECT user_id, json_agg(repo_id ORDER BY created DESC, repo_id DESC) AS repo_ids
    FROM stars WHERE user_id = ANY(${sql.array([...userIds], 'int8')}) GROUP BY user_id`);
  return new Map(rows.map((row) => [row.user_id, row.repo_ids]));
}
