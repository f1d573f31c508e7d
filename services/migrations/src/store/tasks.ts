/**
 * The `migration_tasks` table (0001_migrations.sql): an import's durable task. A claim is a lease (`claimed_until`)
 * renewed while the task runs; `attempts` counts claims and fences them: once a lapsed lease let another replica
 * claim the task, the stale holder's writes change nothing.
 */
import { sql, z, type CommonQueryMethods } from '@cairn/db';

/** MigrationService TaskStatus numbers (Gitea's TaskStatus + 1). */
export const STATUS = { queued: 1, running: 2, stopped: 3, failed: 4, finished: 5 } as const;

/** MigrateRequest's options kept with the task (never a credential). */
export const taskOptions = z.object({
  mirror: z.boolean(),
  private: z.boolean(),
  description: z.string(),
  wiki: z.boolean(),
  milestones: z.boolean(),
  labels: z.boolean(),
  issues: z.boolean(),
  pull_requests: z.boolean(),
  releases: z.boolean(),
  lfs: z.boolean(),
  // A restore's units beyond the import form's (Gitea's MigrateOptions.Comments, ReleaseAssets); unset: as issues / false.
  comments: z.boolean().optional(),
  release_assets: z.boolean().optional(),
});
export type TaskOptions = z.infer<typeof taskOptions>;

/** Source author names an item import matched to local users by e-mail (kept for a resumed import). */
export const taskAuthors = z.record(z.object({ id: z.number(), login: z.string() }));
export type TaskAuthors = z.infer<typeof taskAuthors>;

const taskRow = z.object({
  id: z.number(),
  repo_id: z.number(),
  owner_id: z.number(),
  doer_id: z.number(),
  status: z.number(),
  step: z.string(),
  items_done: z.number(),
  message: z.string(),
  failure_reason: z.string(),
  clone_addr: z.string(),
  service: z.string(),
  options: taskOptions,
  authors: taskAuthors,
  auth_username: z.string(),
  auth_password: z.string(),
  auth_token: z.string(),
  archive_key: z.string(),
  attempts: z.number(),
  created_at: z.date(),
  started_at: z.date().nullable(),
  ended_at: z.date().nullable(),
});
export type TaskRow = z.infer<typeof taskRow>;

export interface NewTask {
  repoId: number;
  ownerId: number;
  doerId: number;
  cloneAddr: string;
  service: string;
  options: TaskOptions;
  auth: { username: string; password: string; token: string };
  /** A restore's dump in the object store (RestoreRepository). */
  archiveKey?: string;
}

export async function insertTask(db: CommonQueryMethods, task: NewTask): Promise<number> {
  return db.oneFirst(sql.type(z.object({ id: z.number() }))`
    INSERT INTO migration_tasks (repo_id, owner_id, doer_id, clone_addr, service, options, auth_username, auth_password, auth_token, archive_key)
    VALUES (${task.repoId}, ${task.ownerId}, ${task.doerId}, ${task.cloneAddr}, ${task.service}, ${sql.jsonb(task.options)},
            ${task.auth.username}, ${task.auth.password}, ${task.auth.token}, ${task.archiveKey ?? ''})
    RETURNING id`);
}

export async function findTaskByRepo(db: CommonQueryMethods, repoId: number): Promise<TaskRow | undefined> {
  return (await db.maybeOne(sql.type(taskRow)`SELECT * FROM migration_tasks WHERE repo_id = ${repoId}`)) ?? undefined;
}

export async function findTask(db: CommonQueryMethods, id: number): Promise<TaskRow | undefined> {
  return (await db.maybeOne(sql.type(taskRow)`SELECT * FROM migration_tasks WHERE id = ${id}`)) ?? undefined;
}

/** Claims up to `limit` tasks not ended and not held by a live lease, for `leaseMs`; SKIP LOCKED lets replicas claim side by side. */
export async function claimTasks(db: CommonQueryMethods, limit: number, leaseMs: number): Promise<TaskRow[]> {
  const rows = await db.any(sql.type(taskRow)`
    WITH due AS (
      SELECT id FROM migration_tasks
      WHERE status IN (${STATUS.queued}, ${STATUS.running}) AND (claimed_until IS NULL OR claimed_until < now())
      ORDER BY id
      LIMIT ${limit}
      FOR UPDATE SKIP LOCKED
    )
    UPDATE migration_tasks t
    SET status = ${STATUS.running}, claimed_until = now() + make_interval(secs => ${leaseMs / 1000}), attempts = t.attempts + 1,
        started_at = coalesce(t.started_at, now())
    FROM due WHERE t.id = due.id
    RETURNING t.*`);
  return [...rows];
}

/** Extends the claim `attempts` of a task; false when it is no longer this claim's. */
export async function renewLease(db: CommonQueryMethods, id: number, attempts: number, leaseMs: number): Promise<boolean> {
  const result = await db.query(sql.unsafe`
    UPDATE migration_tasks SET claimed_until = now() + make_interval(secs => ${leaseMs / 1000})
    WHERE id = ${id} AND attempts = ${attempts} AND status = ${STATUS.running}`);
  return result.rowCount === 1;
}

/** Records the step a claim has reached (the progress readers see), and the authors matched so far if given. */
export async function recordStep(
  db: CommonQueryMethods,
  id: number,
  attempts: number,
  step: string,
  itemsDone: number,
  message: string,
  authors?: TaskAuthors,
): Promise<boolean> {
  const result = await db.query(sql.unsafe`
    UPDATE migration_tasks SET step = ${step}, items_done = ${itemsDone}, message = ${message},
      authors = ${authors === undefined ? sql.fragment`authors` : sql.jsonb(authors)}
    WHERE id = ${id} AND attempts = ${attempts} AND status = ${STATUS.running}`);
  return result.rowCount === 1;
}

/** Lets a claim go to be tried again after `retryInMs` (a passing failure). */
export async function releaseForRetry(db: CommonQueryMethods, id: number, attempts: number, retryInMs: number, message: string): Promise<void> {
  await db.query(sql.unsafe`
    UPDATE migration_tasks SET claimed_until = now() + make_interval(secs => ${retryInMs / 1000}), message = ${message}
    WHERE id = ${id} AND attempts = ${attempts} AND status = ${STATUS.running}`);
}

/**
 * Ends a task: finished, or failed with `message` and `reason`. The credentials go, but a pull mirror's, which its
 * syncs go on using.
 */
export async function endTask(
  db: CommonQueryMethods,
  id: number,
  attempts: number,
  outcome: { status: typeof STATUS.finished } | { status: typeof STATUS.failed; message: string; reason: string },
): Promise<boolean> {
  const failed = outcome.status === STATUS.failed;
  const result = await db.query(sql.unsafe`
    UPDATE migration_tasks
    SET status = ${outcome.status}, step = ${failed ? sql.fragment`step` : sql.fragment`'done'`},
        message = ${failed ? outcome.message : ''}, failure_reason = ${failed ? outcome.reason : ''},
        claimed_until = NULL, ended_at = now(),
        auth_username = CASE WHEN ${failed} OR NOT (options->>'mirror')::boolean THEN '' ELSE auth_username END,
        auth_password = CASE WHEN ${failed} OR NOT (options->>'mirror')::boolean THEN '' ELSE auth_password END,
        auth_token = CASE WHEN ${failed} OR NOT (options->>'mirror')::boolean THEN '' ELSE auth_token END
    WHERE id = ${id} AND attempts = ${attempts} AND status = ${STATUS.running}`);
  return result.rowCount === 1;
}
