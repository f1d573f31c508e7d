/**
 * Commits (routers/api/v1/repo/commits.go): the history from `sha` (default: the default branch), optionally only
 * commits touching `path` or between `since` and `until`, paged with Link, X-Total-Count and Gitea's older
 * X-Page/X-PerPage/X-Total/X-PageCount/X-HasMore headers; and one commit. Stats, files and verification are
 * included unless the query turns them off.
 */
import { EXPOSE_HEADERS_HEADER, HttpError, goFormString, isValidGitRefName } from '@cairn/http';
import { Code } from '@cairn/rpc';
import { type CommitParts, UNIT_CODE, toApiCommits } from '@cairn/gitea-json';
import type { ApiRegistry } from '../../api/registry';
import { type ApiContext, json } from '../../api/types';
import { pageOf } from '../orgs/params';
import { EMPTY_REPOSITORY_MESSAGE, READ_ERRORS, answering, flagOnByDefault, gitRepoOf } from './git-context';

/** Gitea's `[git] COMMITS_RANGE_SIZE`: the most commits one page holds. */
const COMMITS_RANGE_SIZE = 50;

/** Gitea's headers from before Link, kept for older clients. */
const LEGACY_PAGE_HEADERS = ['X-Page', 'X-PerPage', 'X-Total', 'X-PageCount', 'X-HasMore'];

function partsOf<B>(ctx: ApiContext<B>): CommitParts {
  return { stat: flagOnByDefault(ctx.query, 'stat'), verification: flagOnByDefault(ctx.query, 'verification'), files: flagOnByDefault(ctx.query, 'files') };
}

/** `since`/`until` as RFC 3339 times (422 otherwise); unset when not given. */
function timeParam<B>(ctx: ApiContext<B>, name: string): Date | undefined {
  const text = goFormString(ctx.query, name);
  if (text === '') return undefined;
  const date = new Date(text);
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i.test(text) || Number.isNaN(date.getTime())) {
    throw HttpError.unprocessable(`parsing time "${text}" as "2006-01-02T15:04:05Z07:00": cannot parse`);
  }
  return date;
}

export function registerCommitRoutes(api: ApiRegistry): void {
  const reader = { scope: 'repository', auth: 'optional', repo: { unit: UNIT_CODE, mode: 'read' }, errors: READ_ERRORS } as const;

  api.route({
    ...reader,
    errors: { reasons: { empty_repository: () => new HttpError(409, EMPTY_REPOSITORY_MESSAGE) } },
    method: 'get',
    path: '/repos/{owner}/{repo}/commits',
    operationId: 'repoGetAllCommits',
    handler: async (ctx) => {
      const repo = gitRepoOf(ctx);
      const page = pageOf(ctx);
      const limit = Math.min(page.limit, COMMITS_RANGE_SIZE);
      const path = goFormString(ctx.query, 'path');
      const revision = goFormString(ctx.query, 'sha') || repo.repository.defaultBranch;
      const parts = partsOf(ctx);
      const { commits, total } = await answering(
        ctx.services.clients.commits.listCommits({
          repository: repo.git,
          revision,
          path,
          page: page.page,
          limit,
          withStats: parts.stat || parts.files,
          withVerification: parts.verification,
          since: timeParam(ctx, 'since'),
          until: timeParam(ctx, 'until'),
        }),
        { [Code.NOT_FOUND]: (message) => (repo.repository.empty ? new HttpError(409, EMPTY_REPOSITORY_MESSAGE) : HttpError.notFound('not found', [message])) },
      );
      if (total === 0 && repo.repository.empty) throw new HttpError(409, EMPTY_REPOSITORY_MESSAGE);
      // Gitea answers a path no commit touched with 404.
      if (path !== '' && total === 0) throw HttpError.notFound('FileCommitsCount');
      const pageCount = Math.ceil(total / limit);
      ctx.setLinkHeader(total, limit);
      ctx.setTotalCount(total);
      return {
        status: 200,
        body: await toApiCommits(ctx.services, ctx.viewer, commits, repo.links, parts),
        headers: {
          'X-Page': String(page.page),
          'X-PerPage': String(limit),
          'X-Total': String(total),
          'X-PageCount': String(pageCount),
          'X-HasMore': String(page.page < pageCount),
          [EXPOSE_HEADERS_HEADER]: LEGACY_PAGE_HEADERS.join(', '),
        },
      };
    },
  });

  api.route({
    ...reader,
    method: 'get',
    path: '/repos/{owner}/{repo}/git/commits/{sha}',
    operationId: 'repoGetSingleCommit',
    handler: async (ctx) => {
      const repo = gitRepoOf(ctx);
      const sha = ctx.params.sha ?? '';
      if (!isValidGitRefName(sha)) throw HttpError.unprocessable(`no valid ref or sha: ${sha}`);
      const parts = partsOf(ctx);
      const request = { repository: repo.git, revision: sha, withStats: parts.stat || parts.files, withVerification: parts.verification };
      const { commit } = await answering(ctx.services.clients.commits.getCommit(request), {
        [Code.NOT_FOUND]: () => HttpError.notFound(`commit doesn't exist: ${sha}`),
      });
      if (commit === undefined) throw new Error('GetCommit answered without the commit');
      const [found] = await toApiCommits(ctx.services, ctx.viewer, [commit], repo.links, parts);
      return json(200, found);
    },
  });
}
