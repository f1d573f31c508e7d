/**
 * Threads whose subject or owner is gone (Gitea deletes them with the repository: models/repo DeleteRepository's
 * `&activities_model.Notification{RepoID}`, with the issue: DeleteIssue, with the user: services/user/delete.go).
 * The per-status counters follow by trigger in the same transaction.
 */
import { sql, type DatabaseTransactionConnection } from '@cairn/db';

export async function deleteRepoThreads(tx: DatabaseTransactionConnection, repoId: number): Promise<number> {
  return (await tx.query(sql.unsafe`DELETE FROM notification_threads WHERE repo_id = ${repoId}`)).rowCount;
}

export async function deleteIssueThreads(tx: DatabaseTransactionConnection, issueId: number): Promise<number> {
  if (issueId <= 0) return 0;
  return (await tx.query(sql.unsafe`DELETE FROM notification_threads WHERE issue_id = ${issueId}`)).rowCount;
}

/** A deleted user's threads and their counters (mail still waiting for them finds no address and is skipped). */
export async function deleteUserThreads(tx: DatabaseTransactionConnection, userId: number): Promise<number> {
  const deleted = (await tx.query(sql.unsafe`DELETE FROM notification_threads WHERE user_id = ${userId}`)).rowCount;
  await tx.query(sql.unsafe`DELETE FROM notification_counts WHERE user_id = ${userId}`);
  return deleted;
}
