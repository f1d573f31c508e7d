/**
 * CommentServiceService (proto/cairn/issues/v1/issues_service.proto): plain issue comments, as Gitea's
 * routers/api/v1/repo/issue_comment.go and services/issue/comments.go decide them.
 *
 * - Reading needs the issue's unit (issues or pull requests) readable; a comment of another repository, or of a
 *   unit the viewer may not read, is NOT_FOUND.
 * - Commenting needs a signed-in reader; a locked issue takes comments from issue writers and site admins only.
 *   A new comment moves its issue's `updated`.
 * - Editing and deleting: the poster or an issue writer; anyone else is PERMISSION_DENIED with an empty message
 *   (Gitea's bare 403). Only plain comments are edited or deleted here: another kind is FAILED_PRECONDITION
 *   (reason `not_plain_comment`; Gitea answers 204 to GET and PATCH, 400 to DELETE).
 */
import type { CommonQueryMethods, DatabaseTransactionConnection } from '@cairn/db';
import type { CommentServiceService, Issue } from '@cairn/proto/cairn/issues/v1/issues_service';
import { type AsyncServiceOf, CairnError } from '@cairn/rpc';
import { readableIssue } from '../domain/issue-access';
import { requireBodySize } from '../domain/issue-text';
import { type Access, accessOf, canRead, canWrite, requireNotArchived, requireSignedIn } from '../domain/permissions';
import { pageWindow } from '../domain/paging';
import { enqueueCommentEvent } from '../events/comment-events';
import {
  type CommentRow,
  PLAIN_COMMENT,
  deleteCommentRow,
  findCommentsByIds,
  findRepoComment,
  insertComment,
  listIssueComments,
  listRepoComments,
  toComment,
  touchIssue,
  updateCommentBody,
} from '../store/comments';
import { findIssuesByIds, toIssue } from '../store/issues';
import { insertMentions, resolveMentions } from '../store/mentions';
import type { IssuesContext } from './context';
import { guard } from './guard';
import { listTimelineOf } from './timeline-service';

/** Gitea's `repo.issues.comment_on_locked`. */
export const COMMENT_ON_LOCKED_MESSAGE = 'You cannot comment on a locked issue.';

function commentNotFound(id: number): CairnError {
  // Gitea's ErrCommentNotExist, as GetCommentWithRepoID reports it.
  return CairnError.notFound(`comment does not exist [id: ${id}, issue_id: 0]`, { reason: 'comment_not_found' });
}

/** A comment of the scope's repository in a unit the viewer may read, else NOT_FOUND. */
async function readableComment(db: CommonQueryMethods, access: Access, id: number, lock = false): Promise<CommentRow> {
  const row = await findRepoComment(db, access.repository.id, id, lock);
  if (row === undefined || !canRead(access, row.issue_is_pull)) throw commentNotFound(id);
  return row;
}

function requirePlain(row: CommentRow): void {
  if (row.type !== PLAIN_COMMENT) throw CairnError.precondition('not a plain comment', { reason: 'not_plain_comment' });
}

/** The poster or an issue writer (Gitea's check in editIssueComment / deleteIssueComment), else a bare 403. */
function requireCommentManager(access: Access, row: CommentRow): void {
  if (access.viewer.id !== row.poster_id && !canWrite(access, row.issue_is_pull)) {
    throw CairnError.denied('', { reason: 'comment_forbidden' });
  }
}

/** A comment body to store: not empty (Gitea's `binding:"Required"`), no larger than an issue's body may be. */
function requireBody(body: string): string {
  if (body === '') throw CairnError.invalid('[Body]: Required', { reason: 'body_required' });
  return requireBodySize(body);
}

/** The issue of a comment as it is now (for events). */
async function issueOf(tx: DatabaseTransactionConnection, row: CommentRow): Promise<Issue> {
  const [issue] = await findIssuesByIds(tx, [row.issue_id]);
  if (issue === undefined) throw new Error(`issue ${row.issue_id} of comment ${row.id} vanished inside its own transaction`);
  return toIssue(tx, issue);
}

export function createCommentService(context: IssuesContext): AsyncServiceOf<typeof CommentServiceService> {
  const { db } = context;
  return {
    listTimeline: (request) => listTimelineOf(context, request),

    async listIssueComments(request) {
      const access = accessOf(request.scope);
      return guard(async () => {
        const issue = await readableIssue(db.pool, access, request.index);
        const rows = await listIssueComments(db.pool, issue.id, { since: request.since, before: request.before });
        return { comments: rows.map(toComment) };
      });
    },

    async listRepoComments(request) {
      const access = accessOf(request.scope);
      // Gitea's ListRepoIssueComments: the comments of the units the viewer may read.
      const issues = canRead(access, false);
      const pulls = canRead(access, true);
      if (!issues && !pulls) throw CairnError.notFound();
      return guard(async () => {
        const { rows, total } = await listRepoComments(
          db.pool,
          { repoId: access.repository.id, since: request.since, before: request.before, isPull: issues && pulls ? undefined : pulls },
          pageWindow(request.page),
        );
        return { comments: rows.map(toComment), total };
      });
    },

    async getComment(request) {
      const access = accessOf(request.scope);
      return guard(async () => {
        const row = await readableComment(db.pool, access, request.id);
        requirePlain(row);
        return { comment: toComment(row) };
      });
    },

    async createComment(request) {
      const access = accessOf(request.scope);
      const viewerId = requireSignedIn(access);
      requireNotArchived(access);
      const body = requireBody(request.body);
      return guard(async () => {
        // accounts is asked before the transaction opens, so that no row waits on it.
        const mentioned = await resolveMentions(context, body, access.viewer);
        return db.pool.transaction(async (tx) => {
          const issue = await readableIssue(tx, access, request.index);
          if (issue.is_locked && !canWrite(access, issue.is_pull) && !access.viewer.isAdmin) {
            throw CairnError.denied(COMMENT_ON_LOCKED_MESSAGE, { reason: 'issue_locked' });
          }
          const row = await insertComment(tx, { repoId: access.repository.id, issueId: issue.id, posterId: viewerId, body });
          const mentionedUserIds = await insertMentions(tx, issue.id, mentioned);
          const after = await toIssue(tx, await touchIssue(tx, issue.id));
          const comment = toComment(row);
          await enqueueCommentEvent(tx, 'created', { actorId: viewerId, issue: after, comment, repoPrivate: access.repository.private, mentionedUserIds });
          return { comment };
        });
      });
    },

    async editComment(request) {
      const access = accessOf(request.scope);
      const viewerId = requireSignedIn(access);
      requireNotArchived(access);
      const body = requireBody(request.body);
      return guard(() =>
        db.pool.transaction(async (tx) => {
          const current = await readableComment(tx, access, request.id, true);
          requireCommentManager(access, current);
          requirePlain(current);
          const row = await updateCommentBody(tx, current.id, body);
          const comment = toComment(row);
          await enqueueCommentEvent(tx, 'edited', {
            actorId: viewerId,
            issue: await issueOf(tx, row),
            comment,
            repoPrivate: access.repository.private,
            previousBody: current.body,
          });
          return { comment };
        }),
      );
    },

    async deleteComment(request) {
      const access = accessOf(request.scope);
      const viewerId = requireSignedIn(access);
      // No archived check: Gitea's DELETE …/comments/{id} has no mustNotBeArchived.
      return guard(() =>
        db.pool.transaction(async (tx) => {
          const current = await readableComment(tx, access, request.id, true);
          requireCommentManager(access, current);
          requirePlain(current);
          await deleteCommentRow(tx, current.id);
          const after = await toIssue(tx, await touchIssue(tx, current.issue_id));
          await enqueueCommentEvent(tx, 'deleted', { actorId: viewerId, issue: after, comment: toComment(current), repoPrivate: access.repository.private });
          return {};
        }),
      );
    },

    async batchGetComments(request) {
      return guard(async () => ({ comments: (await findCommentsByIds(db.pool, request.ids)).map(toComment) }));
    },
  };
}
