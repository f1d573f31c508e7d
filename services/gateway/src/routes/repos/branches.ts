/**
 * Branches (routers/api/v1/repo/branch.go): list (newest head first, Link and X-Total-Count; an empty repository
 * answers null), get, create, delete and rename. git-storage moves the refs; repos' protection rules say which
 * branches are protected and what the caller may do there — one MatchBranchProtection call per answer.
 * A branch name may hold `/`, so `{branch}` spans the rest of the path.
 */
import { HttpError, go, goStruct } from '@cairn/http';
import type { Branch } from '@cairn/proto/cairn/git/v1/git_service';
import type { BranchProtectionMatch } from '@cairn/proto/cairn/repos/v1/repos_service';
import { Code } from '@cairn/rpc';
import { UNIT_CODE, toApiBranch } from '@cairn/gitea-json';
import type { ApiRegistry } from '../../api/registry';
import { type ApiContext, json, noContent } from '../../api/types';
import { pageOf } from '../orgs/params';
import { READ_ERRORS, EMPTY_REPOSITORY_MESSAGE, type GitRepoContext, answering, gitRepoOf, isRepoAdmin, pushOf } from './git-context';

/** Gitea's `CreateBranchRepoOption`. */
export const CreateBranchRepoOption = goStruct('CreateBranchRepoOption', {
  new_branch_name: go.string('BranchName', { required: true, gitRefName: true, maxSize: 100 }),
  old_branch_name: go.string('OldBranchName', { gitRefName: true, maxSize: 100 }),
  old_ref_name: go.string('OldRefName', { gitRefName: true, maxSize: 100 }),
});

/** Gitea's `RenameBranchRepoOption`. */
export const RenameBranchRepoOption = goStruct('RenameBranchRepoOption', {
  name: go.string('Name', { required: true, gitRefName: true, maxSize: 100 }),
});

const OLD_BRANCH_MISSING = 'The old branch does not exist';
const BRANCH_EXISTS = 'The branch already exists.';
const MIRROR_MESSAGE = 'Git Repository is a mirror.';
const RENAME_TARGET_EXISTS = 'Cannot rename a branch using the same name or rename to a branch that already exists.';
const RENAME_NEEDS_ADMIN = 'User must be a repo or site admin to rename default or protected branches.';
const RENAME_TARGET_PROTECTED = 'Branch is protected by glob-based protection rules.';

function branchParam<B>(ctx: ApiContext<B>): string {
  return ctx.params.branch ?? '';
}

/** The protection rule and the caller's rights for each branch, in order (one call). */
async function matchesFor<B>(ctx: ApiContext<B>, repo: GitRepoContext, branches: readonly string[]): Promise<Array<BranchProtectionMatch | undefined>> {
  if (branches.length === 0) return [];
  const { matches } = await ctx.services.clients.branchProtections.matchBranchProtection({
    viewer: ctx.viewer,
    repoId: repo.repository.id,
    branches: [...branches],
  });
  return branches.map((_, index) => matches[index]);
}

async function branchAnswer<B>(ctx: ApiContext<B>, repo: GitRepoContext, branch: Branch | undefined): Promise<unknown> {
  if (branch === undefined) throw new Error('git-storage answered without the branch');
  const [match] = await matchesFor(ctx, repo, [branch.name]);
  return toApiBranch(branch, match, repo.links);
}

export function registerBranchRoutes(api: ApiRegistry): void {
  const reader = { scope: 'repository', auth: 'optional', repo: { unit: UNIT_CODE, mode: 'read' }, errors: READ_ERRORS } as const;
  const writer = { scope: 'repository', auth: 'required', repo: { unit: UNIT_CODE, mode: 'write', archived: 'refuse' } } as const;

  api.route({
    ...reader,
    method: 'get',
    path: '/repos/{owner}/{repo}/branches',
    operationId: 'repoListBranches',
    handler: async (ctx) => {
      const repo = gitRepoOf(ctx);
      const page = pageOf(ctx);
      const { branches, total } = await ctx.services.clients.refs.listBranches({ repository: repo.git, page: page.page, limit: page.limit });
      const matches = await matchesFor(ctx, repo, branches.map((branch) => branch.name));
      ctx.setLinkHeader(total, page.limit);
      ctx.setTotalCount(total);
      // Gitea answers an empty repository's branch list with null.
      return json(200, total === 0 ? null : branches.map((branch, index) => toApiBranch(branch, matches[index], repo.links)));
    },
  });

  api.route({
    ...reader,
    method: 'get',
    path: '/repos/{owner}/{repo}/branches/{branch}',
    pathWildcards: ['branch'],
    operationId: 'repoGetBranch',
    handler: async (ctx) => {
      const repo = gitRepoOf(ctx);
      const { branch } = await ctx.services.clients.refs.getBranch({ repository: repo.git, name: branchParam(ctx) });
      return json(200, await branchAnswer(ctx, repo, branch));
    },
  });

  api.route({
    ...writer,
    method: 'post',
    path: '/repos/{owner}/{repo}/branches',
    operationId: 'repoCreateBranch',
    body: CreateBranchRepoOption,
    handler: async (ctx) => {
      const repo = gitRepoOf(ctx);
      const { repository } = repo;
      const { refs } = ctx.services.clients;
      if (repository.mirror) throw HttpError.forbidden(MIRROR_MESSAGE);
      const missing = () => new HttpError(404, repository.empty ? EMPTY_REPOSITORY_MESSAGE : OLD_BRANCH_MISSING);
      // The deprecated old_branch_name must name a branch; old_ref_name may be any branch, tag or commit.
      let startPoint = ctx.body.old_ref_name;
      if (startPoint === '' && ctx.body.old_branch_name !== '') {
        await answering(refs.getBranch({ repository: repo.git, name: ctx.body.old_branch_name }), { [Code.NOT_FOUND]: missing });
        startPoint = ctx.body.old_branch_name;
      }
      const { branch } = await answering(
        refs.createBranch({ repository: repo.git, name: ctx.body.new_branch_name, startPoint: startPoint || repository.defaultBranch, push: pushOf(ctx) }),
        { [Code.NOT_FOUND]: missing, [Code.ALREADY_EXISTS]: () => new HttpError(409, BRANCH_EXISTS) },
      );
      return json(201, await branchAnswer(ctx, repo, branch));
    },
  });

  api.route({
    ...writer,
    method: 'delete',
    path: '/repos/{owner}/{repo}/branches/{branch}',
    pathWildcards: ['branch'],
    operationId: 'repoDeleteBranch',
    handler: async (ctx) => {
      const repo = gitRepoOf(ctx);
      const { repository } = repo;
      const name = branchParam(ctx);
      if (repository.mirror) throw HttpError.forbidden('can not delete branch of an mirror repository');
      await ctx.services.clients.refs.getBranch({ repository: repo.git, name });
      if (name === repository.defaultBranch) throw HttpError.forbidden('can not delete default or pull request target branch');
      const [match] = await matchesFor(ctx, repo, [name]);
      if (match?.protection !== undefined) throw HttpError.forbidden('branch protected');
      await ctx.services.clients.refs.deleteBranch({ repository: repo.git, name, push: pushOf(ctx) });
      return noContent();
    },
  });

  api.route({
    ...writer,
    method: 'patch',
    path: '/repos/{owner}/{repo}/branches/{branch}',
    pathWildcards: ['branch'],
    operationId: 'repoRenameBranch',
    body: RenameBranchRepoOption,
    handler: async (ctx) => {
      const repo = gitRepoOf(ctx);
      const { repository } = repo;
      const { refs, branchProtections, repos } = ctx.services.clients;
      const from = branchParam(ctx);
      const to = ctx.body.name;
      if (repository.mirror) throw HttpError.forbidden(MIRROR_MESSAGE);
      if (from === to) throw HttpError.unprocessable(RENAME_TARGET_EXISTS);
      const notFound = () => new HttpError(404, repository.empty ? EMPTY_REPOSITORY_MESSAGE : "Branch doesn't exist.");
      await answering(refs.getBranch({ repository: repo.git, name: from }), { [Code.NOT_FOUND]: notFound });
      const [fromMatch, toMatch] = await matchesFor(ctx, repo, [from, to]);
      // A rule named exactly after the branch, or the default branch, only admins may rename; a rule the new name
      // falls under must let the caller push.
      const exactRule = fromMatch?.protection?.ruleName === from ? fromMatch.protection : undefined;
      const isDefault = from === repository.defaultBranch;
      if ((exactRule !== undefined || isDefault) && !isRepoAdmin(repo)) throw HttpError.forbidden(RENAME_NEEDS_ADMIN);
      if (toMatch?.protection !== undefined && !toMatch.userCanPush) throw HttpError.forbidden(RENAME_TARGET_PROTECTED);
      await answering(refs.renameBranch({ repository: repo.git, from, to, push: pushOf(ctx) }), {
        [Code.ALREADY_EXISTS]: () => HttpError.unprocessable(RENAME_TARGET_EXISTS),
        [Code.NOT_FOUND]: notFound,
      });
      // The rule and the default branch follow the branch, as Gitea's RenameBranch moves them.
      if (exactRule !== undefined) {
        await branchProtections.updateBranchProtection({
          actor: ctx.viewer,
          repoId: repository.id,
          ruleName: from,
          protection: { ...exactRule, ruleName: to },
          fields: ['rule_name'],
        });
      }
      if (isDefault) await repos.updateRepository({ actor: ctx.viewer, id: repository.id, units: {}, defaultBranch: to });
      return noContent();
    },
  });
}
