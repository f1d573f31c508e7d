/**
 * An issue's timeline (routers/api/v1/repo/issue_comment.go ListIssueCommentsAndTimeline): its comments and events,
 * oldest first, paged (`page`, `limit`), `since`/`before` on the updated time (RFC 3339; 422 otherwise), for issues
 * and pull requests alike. The issues service decides what the viewer may read (NOT_FOUND for an issue of a unit
 * they cannot read) and which entries they see. X-Total-Count and Link count every visible entry (Gitea's
 * X-Total-Count counts the page's entries only).
 */
import { toApiTimeline } from '@cairn/gitea-json';
import { pathInt64 } from '../../api/path-int';
import type { ApiRegistry } from '../../api/registry';
import { json, repoOf } from '../../api/types';
import { queryBeforeSince } from '../../issues/before-since';
import { repoScopeOf } from '../../issues/scope';
import { pageOf } from '../orgs/params';

export function registerTimelineRoutes(api: ApiRegistry): void {
  api.route({
    scope: 'issue',
    auth: 'optional',
    repo: { mode: 'read' },
    method: 'get',
    path: '/repos/{owner}/{repo}/issues/{index}/timeline',
    operationId: 'issueGetCommentsAndTimeline',
    handler: async (ctx) => {
      const { before, since } = queryBeforeSince(ctx.query);
      const page = pageOf(ctx);
      const { entries, total } = await ctx.services.clients.comments.listTimeline({
        scope: repoScopeOf(ctx),
        index: pathInt64(ctx.params.index),
        since,
        before,
        page,
      });
      ctx.setLinkHeader(total, page.limit);
      ctx.setTotalCount(total);
      return json(200, await toApiTimeline(ctx.services, ctx.viewer, repoOf(ctx).repository, entries));
    },
  });
}
