/**
 * Commit statuses (routers/api/v1/repo/status.go): create one for a commit (writers, 201), list a commit's
 * statuses (by sha or by any ref: a branch — with `/` too —, a tag or a short sha; sort, state filter, Link and
 * X-Total-Count) and the combined status (latest per context). git-storage resolves the ref to a full sha first,
 * so statuses always hang off the commit; repos owns them.
 */
import { go, goFormString, goStruct } from '@cairn/http';
import { UNIT_CODE, toApiCombinedStatus, toApiCommitStatuses, toApiRepository } from '@cairn/gitea-json';
import type { ApiRegistry } from '../../api/registry';
import { type ApiContext, json } from '../../api/types';
import { pageOf } from '../orgs/params';
import { READ_ERRORS, type GitRepoContext, gitRepoOf } from './git-context';

/** Gitea's `CreateStatusOption` (`state` is answered as `status`). */
export const CreateStatusOption = goStruct('CreateStatusOption', {
  state: go.string('State'),
  target_url: go.string('TargetURL'),
  description: go.string('Description'),
  context: go.string('Context'),
});

/** The full sha of the commit a path parameter names (404 when it names none). */
async function shaOf<B>(ctx: ApiContext<B>, repo: GitRepoContext, param: 'sha' | 'ref'): Promise<string> {
  const { sha } = await ctx.services.clients.refs.resolveRevision({ repository: repo.git, revision: ctx.params[param] ?? '' });
  return sha;
}

async function listStatuses<B>(ctx: ApiContext<B>, param: 'sha' | 'ref'): Promise<unknown> {
  const repo = gitRepoOf(ctx);
  const sha = await shaOf(ctx, repo, param);
  const page = pageOf(ctx);
  const { statuses, total } = await ctx.services.clients.commitStatuses.listCommitStatuses({
    viewer: ctx.viewer,
    repoId: repo.repository.id,
    sha,
    sort: goFormString(ctx.query, 'sort').trim(),
    state: goFormString(ctx.query, 'state').trim(),
    page,
  });
  ctx.setLinkHeader(total, page.limit);
  ctx.setTotalCount(total);
  return toApiCommitStatuses(ctx.services, ctx.viewer, statuses, repo.links);
}

export function registerStatusRoutes(api: ApiRegistry): void {
  const reader = { scope: 'repository', auth: 'optional', repo: { unit: UNIT_CODE, mode: 'read' }, errors: READ_ERRORS } as const;

  api.route({
    scope: 'repository',
    auth: 'required',
    repo: { unit: UNIT_CODE, mode: 'write' },
    method: 'post',
    path: '/repos/{owner}/{repo}/statuses/{sha}',
    operationId: 'repoCreateStatus',
    body: CreateStatusOption,
    handler: async (ctx) => {
      const repo = gitRepoOf(ctx);
      const sha = await shaOf(ctx, repo, 'sha');
      const { body } = ctx;
      const { status } = await ctx.services.clients.commitStatuses.createCommitStatus({
        actor: ctx.viewer,
        repoId: repo.repository.id,
        sha,
        state: body.state,
        targetUrl: body.target_url,
        description: body.description,
        context: body.context,
      });
      if (status === undefined) throw new Error('CreateCommitStatus answered without the status');
      const [created] = await toApiCommitStatuses(ctx.services, ctx.viewer, [status], repo.links);
      return json(201, created);
    },
  });

  api.route({
    ...reader,
    method: 'get',
    path: '/repos/{owner}/{repo}/statuses/{sha}',
    operationId: 'repoListStatuses',
    handler: async (ctx) => json(200, await listStatuses(ctx, 'sha')),
  });

  api.route({
    ...reader,
    method: 'get',
    path: '/repos/{owner}/{repo}/commits/{ref}/statuses',
    pathWildcards: ['ref'],
    operationId: 'repoListStatusesByRef',
    handler: async (ctx) => json(200, await listStatuses(ctx, 'ref')),
  });

  api.route({
    ...reader,
    method: 'get',
    path: '/repos/{owner}/{repo}/commits/{ref}/status',
    pathWildcards: ['ref'],
    operationId: 'repoGetCombinedStatusByRef',
    handler: async (ctx) => {
      const repo = gitRepoOf(ctx);
      const sha = await shaOf(ctx, repo, 'ref');
      const { state, statuses, totalCount } = await ctx.services.clients.commitStatuses.getCombinedStatus({
        viewer: ctx.viewer,
        repoId: repo.repository.id,
        sha,
        page: pageOf(ctx),
      });
      const [apiStatuses, repository] = await Promise.all([
        toApiCommitStatuses(ctx.services, ctx.viewer, statuses, repo.links),
        toApiRepository(ctx.services, ctx.viewer, { repository: repo.repository, permission: repo.permission }),
      ]);
      ctx.setTotalCount(totalCount);
      return json(200, toApiCombinedStatus(state || 'pending', sha, totalCount, apiStatuses, repository, repo.links));
    },
  });
}
