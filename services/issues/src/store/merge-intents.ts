/**
 * The `pull_merge_intents` table: a merge written down before git-storage moves the base branch, and deleted when
 * the merge is recorded (domain/merge-intent.ts decides what a row left behind means). Also the per-pull-request
 * lock that merges and mergeability checks hold while they talk to git-storage.
 */
import {
  sql,
  z,
  type CommonQueryMethods,
  type DatabasePool,
  type DatabasePoolConnection,
  type DatabaseTransactionConnection,
  type SerializableValue,
} from '@cairn/db';

/** First key of the two-int advisory lock on one pull request (second key: hashint8(issue id)). */
const PULL_LOCK_CLASS = 0x0ca1_9e;

/**
 * Runs `work` holding pull request `issueId`'s lock on one connection of its own, so merges and mergeability checks of
 * one pull request run one at a time. A session lock, not a transaction's: `work` waits on git-storage between its
 * statements, and a connection that dies (with its process) lets the lock go.
 */
export async function withPullLock<T>(pool: DatabasePool, issueId: number, work: (connection: DatabasePoolConnection) => Promise<T>): Promise<T> {
  return pool.connect(async (connection) => {
    await connection.query(sql.unsafe`SELECT pg_advisory_lock(${PULL_LOCK_CLASS}, hashint8(${issueId}::int8))`);
    try {
      return await work(connection);
    } finally {
      await connection.query(sql.unsafe`SELECT pg_advisory_unlock(${PULL_LOCK_CLASS}, hashint8(${issueId}::int8))`);
    }
  });
}

const mergeIntentRow = z.object({
  issue_id: z.number(),
  base_commit_id: z.string(),
  head_commit_id: z.string(),
  merge_style: z.string(),
  merger_id: z.number(),
  committer_name: z.string(),
  committer_email: z.string(),
  committed_at: z.date(),
  closing: z.unknown(),
});
export type MergeIntentRow = z.infer<typeof mergeIntentRow>;

export interface NewMergeIntent {
  issueId: number;
  baseCommitId: string;
  headCommitId: string;
  style: string;
  mergerId: number;
  committer: { name: string; email: string; when: Date };
  /** What else the merge changes (rpc/closing-references.ts ClosingTargets), as JSON. */
  closing: SerializableValue;
}

/** Writes the intent; a pull request has at most one (the caller settled any older one under the pull request's lock). */
export async function insertMergeIntent(tx: DatabaseTransactionConnection, intent: NewMergeIntent): Promise<void> {
  await tx.query(sql.unsafe`
    INSERT INTO pull_merge_intents (issue_id, base_commit_id, head_commit_id, merge_style, merger_id, committer_name, committer_email, committed_at, closing)
    VALUES (${intent.issueId}, ${intent.baseCommitId}, ${intent.headCommitId}, ${intent.style}, ${intent.mergerId}, ${intent.committer.name},
      ${intent.committer.email}, ${sql.timestamp(intent.committer.when)}, ${sql.jsonb(intent.closing)})`);
}

export async function findMergeIntent(db: CommonQueryMethods, issueId: number): Promise<MergeIntentRow | undefined> {
  const row = await db.maybeOne(sql.type(mergeIntentRow)`
    SELECT issue_id, base_commit_id, head_commit_id, merge_style, merger_id, committer_name, committer_email, committed_at, closing
    FROM pull_merge_intents WHERE issue_id = ${issueId}`);
  return row ?? undefined;
}

export async function deleteMergeIntent(db: CommonQueryMethods, issueId: number): Promise<void> {
  await db.query(sql.unsafe`DELETE FROM pull_merge_intents WHERE issue_id = ${issueId}`);
}

/** The pull requests with an intent left behind (the start-up sweep); the table holds only merges under way. */
export async function listMergeIntentIssueIds(db: CommonQueryMethods): Promise<number[]> {
  return [...(await db.anyFirst(sql.type(z.object({ issue_id: z.number() }))`SELECT issue_id FROM pull_merge_intents ORDER BY issue_id`))];
}
