/**
 * Notification threads: the one write path of the event consumers. A thread is created unread, or an existing one is
 * bumped (Gitea's models/activities/notification.go createIssueNotification / updateIssueNotification): a read
 * thread turns unread and points at the new comment; an unread one keeps the comment it pointed at (so none is
 * skipped); a pinned one stays pinned; every bump moves it to the top (updated_at) and records who caused it.
 * The per-status counters (notification_counts) follow by trigger in the same transaction.
 */
import { sql, type DatabaseTransactionConnection } from '@cairn/db';

/** Gitea's NotificationSource. */
export const SubjectType = { issue: 1, pull: 2, commit: 3, repository: 4 } as const;
export type SubjectType = (typeof SubjectType)[keyof typeof SubjectType];

/** Gitea's NotificationStatus. */
export const ThreadStatus = { unread: 1, read: 2, pinned: 3 } as const;
export type ThreadStatus = (typeof ThreadStatus)[keyof typeof ThreadStatus];

/** One user's thread about one subject, as an event touches it. */
export interface ThreadTouch {
  userId: number;
  repoId: number;
  subjectType: SubjectType;
  /** The issue or pull request (its id and number); 0 for a commit or repository subject. */
  issueId: number;
  issueIndex: number;
  /** The commit of a commit subject; '' otherwise. */
  commitId: string;
  /** The comment that caused it; 0 when none. */
  commentId: number;
  /** Who caused it (never the thread's user: consumers leave the actor out). */
  updatedBy: number;
}

/** Creates or bumps each thread (see above); returns how many rows were written. Run in processOnce's transaction. */
export async function touchThreads(tx: DatabaseTransactionConnection, touches: readonly ThreadTouch[]): Promise<number> {
  if (touches.length === 0) return 0;
  const rows = touches.map((touch) => ({
    user_id: touch.userId,
    repo_id: touch.repoId,
    subject_type: touch.subjectType,
    issue_id: touch.issueId,
    issue_index: touch.issueIndex,
    commit_id: touch.commitId,
    comment_id: touch.commentId,
    updated_by: touch.updatedBy,
  }));
  // Sorted so that two transactions touching the same users' threads lock the rows in the same order.
  rows.sort((a, b) => a.user_id - b.user_id || a.repo_id - b.repo_id || a.issue_id - b.issue_id || a.commit_id.localeCompare(b.commit_id));
  const result = await tx.query(sql.unsafe`
    INSERT INTO notification_threads (user_id, repo_id, subject_type, issue_id, issue_index, commit_id, comment_id, status, updated_by)
    SELECT r.user_id, r.repo_id, r.subject_type, r.issue_id, r.issue_index, r.commit_id, r.comment_id, ${ThreadStatus.unread}, r.updated_by
    FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
      AS r(user_id bigint, repo_id bigint, subject_type smallint, issue_id bigint, issue_index bigint, commit_id text, comment_id bigint, updated_by bigint)
    ON CONFLICT (user_id, repo_id, subject_type, issue_id, commit_id) DO UPDATE SET
      status = CASE WHEN notification_threads.status = ${ThreadStatus.read} THEN ${ThreadStatus.unread} ELSE notification_threads.status END,
      comment_id = CASE WHEN notification_threads.status = ${ThreadStatus.read} THEN EXCLUDED.comment_id ELSE notification_threads.comment_id END,
      issue_index = EXCLUDED.issue_index,
      updated_by = EXCLUDED.updated_by,
      updated_at = now()`);
  return result.rowCount;
}
