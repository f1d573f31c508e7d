/**
 * The `pull_mirrors` table (0002_mirrors.sql): a pull mirror's schedule, its remote and the remote's credentials
 * (never answered, never logged). A row exists once the mirror's import finished (`insertPullMirror`, called by the
 * import task runner in the transaction that ends the task) and goes with the repository.
 */
import { sql, z, type CommonQueryMethods } from '@cairn/db';
import { claimDueMirrors, SYNC_ENDED } from './mirror-claims';

const pullMirrorRow = z.object({
  repo_id: z.number(),
  remote_address: z.string(),
  auth_username: z.string(),
  auth_password: z.string(),
  auth_token: z.string(),
  interval_ms: z.number(),
  next_update: z.date().nullable(),
  requested_at: z.date().nullable(),
  updated_at: z.date().nullable(),
  last_error: z.string(),
  attempts: z.number(),
  claimed_until: z.date().nullable(),
  claimed_at: z.date().nullable(),
  created_at: z.date(),
});
export type PullMirrorRow = z.infer<typeof pullMirrorRow>;

export interface NewPullMirror {
  repoId: number;
  /** Without credentials. */
  remoteAddress: string;
  auth: { username: string; password: string; token: string };
  intervalMs: number;
}

/**
 * Schedules a new pull mirror whose first fetch (the import) has just been made: that fetch is its first sync
 * (Gitea's MigrateRepositoryGitData creates the mirror row with next_update = now + interval). A repeated call
 * (a resumed task) changes nothing.
 */
export async function insertPullMirror(db: CommonQueryMethods, mirror: NewPullMirror): Promise<void> {
  await db.query(sql.unsafe`
    INSERT INTO pull_mirrors (repo_id, remote_address, auth_username, auth_password, auth_token, interval_ms, next_update, updated_at)
    VALUES (${mirror.repoId}, ${mirror.remoteAddress}, ${mirror.auth.username}, ${mirror.auth.password}, ${mirror.auth.token},
            ${mirror.intervalMs}, CASE WHEN ${mirror.intervalMs} > 0 THEN now() + make_interval(secs => ${mirror.intervalMs / 1000}) END, now())
    ON CONFLICT (repo_id) DO NOTHING`);
}

export async function findPullMirror(db: CommonQueryMethods, repoId: number): Promise<PullMirrorRow | undefined> {
  return (await db.maybeOne(sql.type(pullMirrorRow)`SELECT * FROM pull_mirrors WHERE repo_id = ${repoId}`)) ?? undefined;
}

/** Asks for a sync now (Gitea's AddPullMirrorToQueue; a request made while a sync runs is kept for the next); false when the repository has no pull mirror. */
export async function requestPullSync(db: CommonQueryMethods, repoId: number): Promise<boolean> {
  const result = await db.query(sql.unsafe`UPDATE pull_mirrors SET requested_at = now() WHERE repo_id = ${repoId}`);
  return result.rowCount === 1;
}

/** A changed `mirror_interval` (Gitea's updateMirror: the next sync is the new interval from now, none for 0). */
export async function setPullInterval(db: CommonQueryMethods, repoId: number, intervalMs: number): Promise<void> {
  await db.query(sql.unsafe`
    UPDATE pull_mirrors
    SET interval_ms = ${intervalMs}, next_update = CASE WHEN ${intervalMs} > 0 THEN now() + make_interval(secs => ${intervalMs / 1000}) END
    WHERE repo_id = ${repoId}`);
}

export function claimPullMirrors(db: CommonQueryMethods, limit: number, leaseMs: number): Promise<PullMirrorRow[]> {
  return claimDueMirrors(db, 'pull_mirrors', pullMirrorRow, limit, leaseMs);
}

/** Ends claim `attempts` of a sync: its time and error; answers the time recorded, undefined when the claim was lost. */
export async function endPullSync(db: CommonQueryMethods, repoId: number, attempts: number, error: string): Promise<Date | undefined> {
  const row = await db.maybeOne(sql.type(z.object({ updated_at: z.date() }))`
    UPDATE pull_mirrors SET ${SYNC_ENDED}, updated_at = now(), last_error = ${error}
    WHERE repo_id = ${repoId} AND attempts = ${attempts} AND claimed_until IS NOT NULL
    RETURNING updated_at`);
  return row?.updated_at;
}

export async function deletePullMirror(db: CommonQueryMethods, repoId: number): Promise<void> {
  await db.query(sql.unsafe`DELETE FROM pull_mirrors WHERE repo_id = ${repoId}`);
}
