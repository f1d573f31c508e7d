/**
 * One repository (routers/api/v1/repo/repo.go `Get`, `GetByID`, `Edit`, `Delete`): read by owner/name or id, edit
 * its settings and units (repository admins), delete it (its owner, organization owners, site admins). repos
 * applies every change and decides who may make it; these handlers map EditRepoOption onto one call.
 */
import { HttpError, go, goStruct } from '@cairn/http';
import type { UpdateRepositoryRequest } from '@cairn/proto/cairn/repos/v1/repos_service';
import { Code } from '@cairn/rpc';
import {
  UNIT_ACTIONS,
  UNIT_CODE,
  UNIT_ISSUES,
  UNIT_PACKAGES,
  UNIT_PROJECTS,
  UNIT_PULLS,
  UNIT_RELEASES,
  UNIT_WIKI,
  toApiRepository,
} from '@cairn/gitea-json';
import type { ApiRegistry } from '../../api/registry';
import { json, noContent, repoOf } from '../../api/types';
import { assertPublicOnlyMayReach } from '../../api/repo-context';
import { isPublicOnly } from '../../auth/caller';
import type { BodyOf } from '../orgs/options';

/** Gitea's `EditRepoOption` as far as Cairn keeps the settings, fields in struct order. */
export const EditRepoOption = goStruct('EditRepoOption', {
  name: go.stringPtr('Name', { alphaDashDot: true, maxSize: 100 }),
  description: go.stringPtr('Description', { maxSize: 2048 }),
  website: go.stringPtr('Website', { maxSize: 1024 }),
  private: go.boolPtr('Private'),
  template: go.boolPtr('Template'),
  has_code: go.boolPtr('HasCode'),
  has_issues: go.boolPtr('HasIssues'),
  internal_tracker: go.structPtr('InternalTracker', 'structs.InternalTracker', {
    enable_time_tracker: go.bool('EnableTimeTracker'),
    allow_only_contributors_to_track_time: go.bool('AllowOnlyContributorsToTrackTime'),
    enable_issue_dependencies: go.bool('EnableIssueDependencies'),
  }),
  has_wiki: go.boolPtr('HasWiki'),
  default_branch: go.stringPtr('DefaultBranch'),
  has_pull_requests: go.boolPtr('HasPullRequests'),
  has_projects: go.boolPtr('HasProjects'),
  projects_mode: go.stringPtr('ProjectsMode', { in: ['repo', 'owner', 'all'] }),
  has_releases: go.boolPtr('HasReleases'),
  has_packages: go.boolPtr('HasPackages'),
  has_actions: go.boolPtr('HasActions'),
  ignore_whitespace_conflicts: go.boolPtr('IgnoreWhitespaceConflicts'),
  allow_merge_commits: go.boolPtr('AllowMerge'),
  allow_rebase: go.boolPtr('AllowRebase'),
  allow_rebase_explicit: go.boolPtr('AllowRebaseMerge'),
  allow_squash_merge: go.boolPtr('AllowSquash'),
  allow_fast_forward_only_merge: go.boolPtr('AllowFastForwardOnly'),
  allow_manual_merge: go.boolPtr('AllowManualMerge'),
  autodetect_manual_merge: go.boolPtr('AutodetectManualMerge'),
  allow_rebase_update: go.boolPtr('AllowRebaseUpdate'),
  default_delete_branch_after_merge: go.boolPtr('DefaultDeleteBranchAfterMerge'),
  default_merge_style: go.stringPtr('DefaultMergeStyle'),
  default_allow_maintainer_edit: go.boolPtr('DefaultAllowMaintainerEdit'),
  archived: go.boolPtr('Archived'),
  mirror_interval: go.stringPtr('MirrorInterval'),
});

type EditRepoBody = BodyOf<typeof EditRepoOption>;

/** The `has_*` switches and the unit each turns on or off. */
const UNIT_SWITCHES = {
  has_code: UNIT_CODE,
  has_issues: UNIT_ISSUES,
  has_wiki: UNIT_WIKI,
  has_pull_requests: UNIT_PULLS,
  has_projects: UNIT_PROJECTS,
  has_releases: UNIT_RELEASES,
  has_packages: UNIT_PACKAGES,
  has_actions: UNIT_ACTIONS,
} as const;

/**
 * EditRepoOption → UpdateRepository, as Gitea's `updateBasicProperties`/`updateRepoUnits` read it: an empty name
 * is no rename; the issue-tracker settings apply only with `has_issues: true`, the pull-request settings only with
 * `has_pull_requests: true` and the projects mode only with `has_projects: true` (each configures the unit it
 * switches on).
 */
export function updateRequestOf(body: EditRepoBody): Omit<UpdateRepositoryRequest, 'actor' | 'id'> {
  const units: Record<string, boolean> = {};
  for (const [flag, unit] of Object.entries(UNIT_SWITCHES)) {
    const on = body[flag as keyof typeof UNIT_SWITCHES];
    if (on !== undefined) units[unit] = on;
  }
  const tracker = body.has_issues === true ? body.internal_tracker : undefined;
  const pulls = body.has_pull_requests === true;
  return {
    name: body.name === '' ? undefined : body.name,
    description: body.description,
    website: body.website,
    private: body.private,
    template: body.template,
    archived: body.archived,
    defaultBranch: body.default_branch,
    mirrorInterval: body.mirror_interval,
    units,
    ...(pulls
      ? {
          allowMergeCommits: body.allow_merge_commits,
          allowRebase: body.allow_rebase,
          allowRebaseExplicit: body.allow_rebase_explicit,
          allowSquashMerge: body.allow_squash_merge,
          allowFastForwardOnlyMerge: body.allow_fast_forward_only_merge,
          allowRebaseUpdate: body.allow_rebase_update,
          allowManualMerge: body.allow_manual_merge,
          autodetectManualMerge: body.autodetect_manual_merge,
          defaultDeleteBranchAfterMerge: body.default_delete_branch_after_merge,
          defaultMergeStyle: body.default_merge_style,
          defaultAllowMaintainerEdit: body.default_allow_maintainer_edit,
          ignoreWhitespaceConflicts: body.ignore_whitespace_conflicts,
        }
      : {}),
    ...(tracker === undefined
      ? {}
      : {
          enableTimeTracker: tracker.enable_time_tracker,
          allowOnlyContributorsToTrackTime: tracker.allow_only_contributors_to_track_time,
          enableIssueDependencies: tracker.enable_issue_dependencies,
        }),
    ...(body.has_projects === true ? { projectsMode: body.projects_mode } : {}),
  };
}

/** `{id}` as Gitea's PathParamInt64 reads it: anything but an integer is 0, which names no repository. */
function repositoryIdOf(text: string): number {
  return /^\d+$/.test(text) && Number.isSafeInteger(Number(text)) ? Number(text) : 0;
}

export function registerRepoRoutes(api: ApiRegistry): void {
  api.route({
    method: 'get',
    path: '/repos/{owner}/{repo}',
    operationId: 'repoGet',
    scope: 'repository',
    auth: 'optional',
    repo: { mode: 'read' },
    handler: async (ctx) => json(200, await toApiRepository(ctx.services, ctx.viewer, repoOf(ctx))),
  });

  api.route({
    method: 'patch',
    path: '/repos/{owner}/{repo}',
    operationId: 'repoEdit',
    scope: 'repository',
    auth: 'required',
    repo: { mode: 'admin' },
    body: EditRepoOption,
    // A name the owner already has is 422 on edit (`repo name is already taken`), unlike on create.
    errors: { codes: { [Code.ALREADY_EXISTS]: 422 } },
    handler: async (ctx) => {
      const { repository } = await ctx.services.clients.repos.updateRepository({
        actor: ctx.viewer,
        id: repoOf(ctx).repository.id,
        ...updateRequestOf(ctx.body),
      });
      if (repository === undefined) throw new Error('UpdateRepository answered without a repository');
      return json(200, await toApiRepository(ctx.services, ctx.viewer, repository));
    },
  });

  api.route({
    method: 'delete',
    path: '/repos/{owner}/{repo}',
    operationId: 'repoDelete',
    scope: 'repository',
    auth: 'required',
    repo: { mode: 'owner' },
    handler: async (ctx) => {
      await ctx.services.clients.repos.deleteRepository({ actor: ctx.viewer, id: repoOf(ctx).repository.id });
      return noContent();
    },
  });

  api.route({
    method: 'get',
    path: '/repositories/{id}',
    operationId: 'repoGetByID',
    scope: 'repository',
    auth: 'required',
    // A repository that does not exist or that the caller may not read: Gitea's bare 404.
    errors: { reasons: { repo_not_found: () => HttpError.notFound() } },
    handler: async (ctx) => {
      const id = repositoryIdOf(ctx.params.id ?? '');
      if (id === 0) throw HttpError.notFound();
      const { repository } = await ctx.services.clients.repos.getRepository({ viewer: ctx.viewer, id, owner: '', name: '' });
      if (repository === undefined) throw new Error('GetRepository answered without a repository');
      // As on `/repos/{owner}/{repo}`.
      if (repository.repository !== undefined) assertPublicOnlyMayReach(repository.repository, isPublicOnly(ctx.caller));
      return json(200, await toApiRepository(ctx.services, ctx.viewer, repository));
    },
  });
}
