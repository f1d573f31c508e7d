/**
 * What goes when a repository, a user or an organization is deleted elsewhere (the consumers in events/*-consumer.ts). No event is
 * published for these rows: the repository's or user's deletion event stands for them. A deleted user's comments
 * are the exception (they go through store/comments.ts and publish cairn.issue_comment.deleted, so that their
 * reactions go too).
 */
import { sql, type DatabaseTransactionConnection } from '@cairn/db';

/**
 * Deletes up to `limit` issues of the repository (their comments, labels on them, assignees, mentions, times,
 * stopwatches and subscriptions go with them: ON DELETE CASCADE); answers how many went.
 */
export async function deleteRepoIssueBatch(tx: DatabaseTransactionConnection, repoId: number, limit: number): Promise<number> {
  const result = await tx.query(sql.unsafe`
    DELETE FROM issues WHERE id IN (SELECT id FROM issues WHERE repo_id = ${repoId} ORDER BY id LIMIT ${limit} FOR UPDATE)`);
  return result.rowCount;
}

/** Everything else of the repository once its issues are gone: labels, milestones, counters and the numbering. */
export async function deleteRepoRest(tx: DatabaseTransactionConnection, repoId: number): Promise<void> {
  // Issues that were still there (none, unless the batches were interrupted) go in this transaction.
  await tx.query(sql.unsafe`DELETE FROM issues WHERE repo_id = ${repoId}`);
  await tx.query(sql.unsafe`DELETE FROM labels WHERE repo_id = ${repoId} AND repo_id > 0`);
  await tx.query(sql.unsafe`DELETE FROM milestones WHERE repo_id = ${repoId}`);
  await tx.query(sql.unsafe`DELETE FROM issue_counts WHERE repo_id = ${repoId}`);
  await tx.query(sql.unsafe`DELETE FROM issue_blocks WHERE repo_id = ${repoId}`);
  await tx.query(sql.unsafe`DELETE FROM repo_issue_index WHERE repo_id = ${repoId}`);
}

/**
 * A deleted user's stopwatches, subscriptions, assignments and mentions (Gitea's deleteUser removes the stopwatches,
 * issue users and watches; tracked times and the issues they posted stay, the poster shown as the Ghost user).
 */
export async function deleteUserIssueLinks(tx: DatabaseTransactionConnection, userId: number): Promise<void> {
  await tx.query(sql.unsafe`DELETE FROM stopwatches WHERE user_id = ${userId}`);
  await tx.query(sql.unsafe`DELETE FROM issue_watches WHERE user_id = ${userId}`);
  await tx.query(sql.unsafe`DELETE FROM issue_assignees WHERE assignee_id = ${userId}`);
  await tx.query(sql.unsafe`DELETE FROM issue_mentions WHERE user_id = ${userId}`);
}

/** A deleted organization's labels (taken off every issue that carried them: ON DELETE CASCADE). */
export async function deleteOrgLabels(tx: DatabaseTransactionConnection, orgId: number): Promise<void> {
  await tx.query(sql.unsafe`DELETE FROM labels WHERE org_id = ${orgId} AND org_id > 0`);
}
