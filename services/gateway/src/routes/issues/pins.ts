/**
 * Pinned issues and pull requests (routers/api/v1/repo/issue_pin.go); the issues service keeps the pins and their
 * rules (services/issues/src/rpc/pin-service.ts).
 * - `POST`/`DELETE …/issues/{index}/pin`, `PATCH …/issues/{index}/pin/{position}` (token, repository admins: 403
 *   with Gitea's reqAdmin message before the issue is looked up; an unknown issue a bare 404): 204. Past
 *   `[repository.issue] MAX_PINNED` pins of the kind: 400 with Gitea's ErrIssueMaxPinReached text; a position below
 *   1: 422 (Gitea fails both with a 500). Archived repositories: 423.
 * - `GET …/issues/pinned`: the pinned issues in pin order, as the issue list shapes them.
 * - `GET …/pulls/pinned`: the pinned pull requests in pin order, each as `GET …/pulls/{index}` shapes it (Gitea's
 *   ToAPIPullRequest); pull requests and code must be readable (404).
 * - `GET …/new_pin_allowed`: Gitea's NewIssuePinsAllowed for any reader of the repository.
 * Registered before `/issues/{index}` and `/pulls/{index}` (express matches in registration order).
 */
import { toApiIssues, toApiPullRequests } from '@cairn/gitea-json';
import { pathInt64 } from '../../api/path-int';
import type { ApiRegistry } from '../../api/registry';
import { type ApiContext, type ApiReply, json, noContent, repoOf } from '../../api/types';
import { repoScopeOf } from '../../issues/scope';
import { TRACKER_ERRORS, trackerAnswer } from '../../issues/tracker-answers';
import { PULL_READER, pullHandler } from '../pulls/pull-context';

/** The pin changes' refusals: Gitea's texts, as 4xx where Gitea fails with a 500. */
const PIN_ERRORS = { reasons: { ...TRACKER_ERRORS.reasons, max_pinned: 400, invalid_position: 422 } } as const;

/** Gitea's NewIssuePinsAllowed. */
interface ApiNewIssuePinsAllowed {
  issues: boolean;
  pull_requests: boolean;
}

function indexOf<B>(ctx: ApiContext<B>): number {
  return pathInt64(ctx.params.index);
}

async function listPinnedIssues<B>(ctx: ApiContext<B>): Promise<ApiReply> {
  const { issues } = await ctx.services.clients.issues.listPinnedIssues({ scope: repoScopeOf(ctx) });
  const { repository } = repoOf(ctx);
  return json(200, await toApiIssues(ctx.services, ctx.viewer, issues, new Map([[repository.id, repository]])));
}

async function listPinnedPulls<B>(ctx: ApiContext<B>): Promise<ApiReply> {
  const { pulls } = await ctx.services.clients.pulls.listPinnedPulls({ scope: repoScopeOf(ctx) });
  return json(200, await toApiPullRequests(ctx.services, ctx.viewer, pulls, repoOf(ctx), { single: true }));
}

export function registerPinRoutes(api: ApiRegistry): void {
  // Gitea: reqToken, reqAdmin on the `/issues/{index}/pin` group; the service checks the same before the issue.
  const pinner = { scope: 'issue', auth: 'required', repo: { mode: 'admin', archived: 'refuse' }, errors: PIN_ERRORS } as const;

  api.route({
    ...pinner,
    method: 'post',
    path: '/repos/{owner}/{repo}/issues/{index}/pin',
    operationId: 'pinIssue',
    handler: (ctx) =>
      trackerAnswer(async () => {
        await ctx.services.clients.issues.pinIssue({ scope: repoScopeOf(ctx), index: indexOf(ctx) });
        return noContent();
      }),
  });

  api.route({
    ...pinner,
    method: 'delete',
    path: '/repos/{owner}/{repo}/issues/{index}/pin',
    operationId: 'unpinIssue',
    handler: (ctx) =>
      trackerAnswer(async () => {
        await ctx.services.clients.issues.unpinIssue({ scope: repoScopeOf(ctx), index: indexOf(ctx) });
        return noContent();
      }),
  });

  api.route({
    ...pinner,
    method: 'patch',
    path: '/repos/{owner}/{repo}/issues/{index}/pin/{position}',
    operationId: 'moveIssuePin',
    handler: (ctx) =>
      trackerAnswer(async () => {
        // Gitea's PathParamInt64: anything but a number is 0, which MovePin refuses.
        await ctx.services.clients.issues.moveIssuePin({ scope: repoScopeOf(ctx), index: indexOf(ctx), position: pathInt64(ctx.params.position) });
        return noContent();
      }),
  });

  api.route({
    scope: 'issue',
    auth: 'optional',
    repo: { mode: 'read' },
    errors: TRACKER_ERRORS,
    method: 'get',
    path: '/repos/{owner}/{repo}/issues/pinned',
    operationId: 'repoListPinnedIssues',
    handler: (ctx) => trackerAnswer(() => listPinnedIssues(ctx)),
  });

  api.route({
    ...PULL_READER,
    method: 'get',
    path: '/repos/{owner}/{repo}/pulls/pinned',
    operationId: 'repoListPinnedPullRequests',
    handler: pullHandler(listPinnedPulls),
  });

  api.route({
    scope: 'repository',
    auth: 'optional',
    repo: { mode: 'read' },
    method: 'get',
    path: '/repos/{owner}/{repo}/new_pin_allowed',
    operationId: 'repoNewPinAllowed',
    handler: async (ctx) => {
      const allowed = await ctx.services.clients.issues.getNewPinsAllowed({ scope: repoScopeOf(ctx) });
      const body: ApiNewIssuePinsAllowed = { issues: allowed.issues, pull_requests: allowed.pullRequests };
      return json(200, body);
    },
  });
}
