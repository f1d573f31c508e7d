/** The `push_mirrors` table (0002_mirrors.sql): a repository's push mirrors, their schedules and last outcomes. */
import { sql, z, type CommonQueryMethods } from '@cairn/db';
import { claimDueMirrors, SYNC_ENDED } from './mirror-claims';

const pushMirrorRow = z.object({
  id: z.number(),
  repo_id: z.number(),
  remote_name: z.string(),
  remote_address: z.string(),
  auth_username: z.string(),
  auth_password: z.string(),
  interval_ms: z.number(),
  sync_on_commit: z.boolean(),
  next_update: z.date().nullable(),
  requested_at: z.date().nullable(),
  last_update: z.date().nullable(),
  last_error: z.string(),
  attempts: z.number(),
  claimed_until: z.date().nullable(),
  claimed_at: z.date().nullable(),
  created_at: z.date(),
});
export type PushMirrorRow = z.infer<typeof pushMirrorRow>;

export interface NewPushMirror {
  repoId: number;
  remoteName: string;
  remoteAddress: string;
  auth: { username: string; password: string };
  intervalMs: number;
  syncOnCommit: boolean;
}

export async function insertPushMirror(db: CommonQueryMethods, mirror: NewPushMirror): Promise<PushMirrorRow> {
  return db.one(sql.type(pushMirrorRow)`
    INSERT INTO push_mirrors (repo_id, remote_name, remote_address, auth_username, auth_password, interval_ms, sync_on_commit, next_update)
    VALUES (${mirror.repoId}, ${mirror.remoteName}, ${mirror.remoteAddress}, ${mirror.auth.username}, ${mirror.auth.password},
            ${mirror.intervalMs}, ${mirror.syncOnCommit}, CASE WHEN ${mirror.intervalMs} > 0 THEN now() + make_interval(secs => ${mirror.intervalMs / 1000}) END)
    RETURNING *`);
}

/** A page of the repository's push mirrors, oldest first, and how many it has. */
export async function listPushMirrors(db: CommonQueryMethods, repoId: number, page: { limit: number; offset: number }): Promise<{ rows: PushMirrorRow[]; total: number }> {
  const rows = await db.any(sql.type(pushMirrorRow)`
    SELECT * FROM push_mirrors WHERE repo_id = ${repoId} ORDER BY id LIMIT ${page.limit} OFFSET ${page.offset}`);
  const total = await db.oneFirst(sql.type(z.object({ count: z.number() }))`SELECT count(*)::int AS count FROM push_mirrors WHERE repo_id = ${repoId}`);
  return { rows: [...rows], total };
}

export async function findPushMirror(db: CommonQueryMethods, repoId: number, remoteName: string): Promise<PushMirrorRow | undefined> {
  return (await db.maybeOne(sql.type(pushMirrorRow)`SELECT * FROM push_mirrors WHERE repo_id = ${repoId} AND remote_name = ${remoteName}`)) ?? undefined;
}

export async function deletePushMirror(db: CommonQueryMethods, repoId: number, remoteName: string): Promise<boolean> {
  const result = await db.query(sql.unsafe`DELETE FROM push_mirrors WHERE repo_id = ${repoId} AND remote_name = ${remoteName}`);
  return result.rowCount === 1;
}

export async function deletePushMirrorsOf(db: CommonQueryMethods, repoId: number): Promise<void> {
  await db.query(sql.unsafe`DELETE FROM push_mirrors WHERE repo_id = ${repoId}`);
}

/** Asks for a push of the repository's mirrors now: all of them, or (a push to the repository) those syncing on commit. */
export async function requestPushSyncs(db: CommonQueryMethods, repoId: number, which: 'all' | 'on_commit'): Promise<number> {
  const result = await db.query(sql.unsafe`
    UPDATE push_mirrors SET requested_at = now()
    WHERE repo_id = ${repoId} ${which === 'on_commit' ? sql.fragment`AND sync_on_commit` : sql.fragment``}`);
  return result.rowCount;
}

export function claimPushMirrors(db: CommonQueryMethods, limit: number, leaseMs: number): Promise<PushMirrorRow[]> {
  return claimDueMirrors(db, 'push_mirrors', pushMirrorRow, limit, leaseMs);
}

/** Ends claim `attempts` of a push: last_update now, its error ('' on success); false when the claim was lost. */
export async function endPushSync(db: CommonQueryMethods, id: number, attempts: number, error: string): Promise<boolean> {
  const result = await db.query(sql.unsafe`
    UPDATE push_mirrors SET ${SYNC_ENDED}, last_update = now(), last_error = ${error}
    WHERE id = ${id} AND attempts = ${attempts} AND claimed_until IS NOT NULL`);
  return result.rowCount === 1;
}
