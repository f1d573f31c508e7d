/**
 * IssueSubscriptionServiceService (proto/cairn/issues/v1/issues_service.proto): who is notified about an issue,
 * as Gitea's routers/api/v1/repo/issue_subscription.go and models/issues/issue_watch.go decide it.
 *
 * - The list holds the explicit subscriptions only (issue_watch rows with is_watching).
 * - Whether a user is subscribed (CheckIssueWatch): their explicit choice wins; without one, they are if they watch
 *   the repository (the gateway asks social) or take part in the issue (its poster, or the writer of a plain, code
 *   or review comment on it).
 * - Changing a subscription: the user themselves, or a site admin for anyone (Gitea checks `Doer.IsAdmin` only);
 *   nothing is written when the user already is as asked (`changed` false: Gitea's 200 instead of 201).
 */
import type { CommonQueryMethods } from '@cairn/db';
import type { IssueSubscriptionServiceService } from '@cairn/proto/cairn/issues/v1/issues_service';
import { type AsyncServiceOf, CairnError } from '@cairn/rpc';
import { readableIssue } from '../domain/issue-access';
import { pageWindow } from '../domain/paging';
import { accessOf, requireSignedIn } from '../domain/permissions';
import { enqueueSubscriptionEvent } from '../events/subscription-events';
import { CODE_COMMENT, PLAIN_COMMENT, REVIEW_COMMENT, hasCommented } from '../store/comments';
import { type IssueRow, findIssuesByIds, toIssue } from '../store/issues';
import { findWatch, issueAudience, listWatchers, saveWatch } from '../store/subscriptions';
import type { IssuesContext } from './context';
import { guard } from './guard';

/** Gitea's CheckIssueWatch for `userId` on `issue`. */
async function isSubscribed(db: CommonQueryMethods, issue: IssueRow, userId: number, watchesRepository: boolean): Promise<boolean> {
  const explicit = await findWatch(db, issue.id, userId);
  if (explicit !== undefined) return explicit;
  return watchesRepository || issue.poster_id === userId || hasCommented(db, issue.id, userId);
}

export function createSubscriptionService({ db }: IssuesContext): AsyncServiceOf<typeof IssueSubscriptionServiceService> {
  return {
    async listSubscribers(request) {
      const access = accessOf(request.scope);
      return guard(async () => {
        const issue = await readableIssue(db.pool, access, request.index);
        return listWatchers(db.pool, issue.id, pageWindow(request.page));
      });
    },

    async checkSubscription(request) {
      const access = accessOf(request.scope);
      const viewerId = requireSignedIn(access);
      return guard(async () => {
        const issue = await readableIssue(db.pool, access, request.index);
        return { subscribed: await isSubscribed(db.pool, issue, viewerId, request.watchesRepository), issueCreated: issue.created };
      });
    },

    async setSubscription(request) {
      const access = accessOf(request.scope);
      const viewerId = requireSignedIn(access);
      const { userId, subscribed } = request;
      if (!Number.isSafeInteger(userId) || userId <= 0) throw CairnError.invalid('user_id must be a user id');
      return guard(() =>
        db.pool.transaction(async (tx) => {
          const issue = await readableIssue(tx, access, request.index);
          if (userId !== viewerId && !access.viewer.isAdmin) {
            throw CairnError.denied('not permitted to change subscriptions of another user', { reason: 'subscription_of_other_user' });
          }
          if ((await isSubscribed(tx, issue, userId, request.watchesRepository)) === subscribed) return { changed: false };
          if (!(await saveWatch(tx, issue.id, userId, subscribed))) return { changed: false };
          await enqueueSubscriptionEvent(tx, { actorId: viewerId, issue: await toIssue(tx, issue), repoPrivate: access.repository.private, userId, subscribed });
          return { changed: true };
        }),
      );
    },

    async getIssueAudience(request) {
      const issueId = request.issueId;
      if (!Number.isSafeInteger(issueId) || issueId <= 0) throw CairnError.invalid('issue_id must be an issue id');
      return guard(async () => {
        const [issue] = await findIssuesByIds(db.pool, [issueId]);
        if (issue === undefined) throw CairnError.notFound('issue does not exist');
        return issueAudience(db.pool, issue.id, [PLAIN_COMMENT, CODE_COMMENT, REVIEW_COMMENT]);
      });
    },
  };
}
