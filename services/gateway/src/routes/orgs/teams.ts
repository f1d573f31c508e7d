/**
 * Teams (routers/api/v1/org/team.go): an organization's teams and their search, one team, its members and its
 * repositories. accounts decides who may see and change a team; the team's repository links are the repos
 * service's. A team repository is looked up by name in the team's organization (Gitea ignores the path's
 * `{org}` there).
 */
import { CairnError, Code } from '@cairn/rpc';
import { HttpError, goFormString } from '@cairn/http';
import type { Team } from '@cairn/proto/cairn/accounts/v1/orgs_service';
import type { Repository, RepositoryWithPermission } from '@cairn/proto/cairn/repos/v1/repos_service';
import { toApiRepositories, toApiTeam, toApiUser } from '@cairn/gitea-json';
import type { ApiRegistry } from '../../api/registry';
import { PUBLIC_ONLY_ORG_MESSAGE } from '../../api/pipeline';
import { json, noContent, type ApiContext } from '../../api/types';
import { isPublicOnly } from '../../auth/caller';
import { toApiUsersWithCounts } from '../../social/user-counts';
import { CreateTeamOption, EditTeamOption } from './options';
import { accountOf, pageOf, teamIdOf } from './params';

const TEAM_ERRORS = {
  // A taken team name is 422 in Gitea. A non-admin team without units is Gitea's 500 with the same message
  // (routers/api/v1/org/team.go); bad input is a 4xx here, so it keeps the default 422 (a departure).
  codes: { [Code.ALREADY_EXISTS]: 422 },
  reasons: {
    team_member_not_found: () => HttpError.notFound(),
  },
};

/** Access modes that make a repository admin (Gitea's `AccessLevel >= AccessModeAdmin`). */
const ADMIN_MODES: ReadonlySet<string> = new Set(['admin', 'owner']);

/**
 * The team of a `/teams/{id}` route, when the caller may see it (Gitea's `reqTeamMembership`). A public-only token
 * reaches teams of public organizations only (Gitea's checkTokenPublicOnly after orgAssignment, routers/api/v1/api.go).
 */
async function teamOf<B>(ctx: ApiContext<B>): Promise<Team> {
  const { team } = await ctx.services.clients.teams.getTeam({ viewer: ctx.viewer, id: teamIdOf(ctx) });
  if (team === undefined) throw new Error('GetTeam answered without a team');
  if (isPublicOnly(ctx.caller) && team.organization?.visibility !== 'public') throw HttpError.forbidden(PUBLIC_ONLY_ORG_MESSAGE);
  return team;
}

/** The `{id}` of a `/teams/{id}` route; a public-only token's team is checked first (see teamOf). */
async function teamIdFor<B>(ctx: ApiContext<B>): Promise<number> {
  if (isPublicOnly(ctx.caller)) await teamOf(ctx);
  return teamIdOf(ctx);
}

type FoundRepo = RepositoryWithPermission & { repository: Repository };

/** The `{repo}` of the team's organization, as the caller reaches it (404 when none or unreadable). */
async function teamOrgRepo<B>(ctx: ApiContext<B>, team: Team): Promise<FoundRepo> {
  const found = await ctx.services.clients.repos
    .getRepository({ viewer: ctx.viewer, id: 0, owner: team.organization?.name ?? '', name: ctx.params.repo ?? '' })
    .then(({ repository }) => repository, notFoundAsGitea);
  // A former name answers a redirect, which names no repository of the organization now.
  if (found?.repository === undefined) throw HttpError.notFound();
  return { ...found, repository: found.repository };
}

/** Gitea answers a repository it cannot find here, or a team not linked to it, with its bare not-found. */
function notFoundAsGitea(error: unknown): never {
  if (error instanceof CairnError && error.code === Code.NOT_FOUND) throw HttpError.notFound();
  throw error;
}

/** Adding or removing a team's repository needs admin access to it, whatever the team (Gitea's AddTeamRepository). */
async function adminTeamOrgRepo<B>(ctx: ApiContext<B>, team: Team): Promise<FoundRepo> {
  const found = await teamOrgRepo(ctx, team);
  if (!ADMIN_MODES.has(found.permission?.accessMode ?? '')) throw HttpError.forbidden('Must have admin-level access to the repository');
  return found;
}

/** Gitea's team repository changes are idempotent: a link already there (or already gone) is a success. */
async function idempotent(change: Promise<unknown>, reason: string): Promise<void> {
  try {
    await change;
  } catch (error) {
    if (!(error instanceof CairnError && error.reason === reason)) throw error;
  }
}

export function registerTeamRoutes(api: ApiRegistry): void {
  const route = { scope: 'organization', auth: 'required', errors: TEAM_ERRORS } as const;
  const rootUrl = <B>(ctx: ApiContext<B>) => ctx.services.config.server.rootUrl;

  api.route({
    ...route,
    method: 'get',
    path: '/orgs/{org}/teams',
    operationId: 'orgListTeams',
    handler: async (ctx) => {
      const { teams, total } = await ctx.services.clients.teams.listTeams({ viewer: ctx.viewer, org: accountOf(ctx, 'org').name, page: pageOf(ctx) });
      ctx.setTotalCount(total);
      return json(200, teams.map((team) => toApiTeam(team, rootUrl(ctx))));
    },
  });

  api.route({
    ...route,
    method: 'post',
    path: '/orgs/{org}/teams',
    operationId: 'orgCreateTeam',
    body: CreateTeamOption,
    handler: async (ctx) => {
      const { body } = ctx;
      const { team } = await ctx.services.clients.teams.createTeam({
        actor: ctx.viewer,
        org: accountOf(ctx, 'org').name,
        name: body.name,
        description: body.description,
        permission: body.permission,
        units: body.units,
        unitsMap: body.units_map,
        includesAllRepositories: body.includes_all_repositories,
        canCreateOrgRepo: body.can_create_org_repo,
      });
      if (team === undefined) throw new Error('CreateTeam answered without a team');
      return json(201, toApiTeam(team, rootUrl(ctx)));
    },
  });

  api.route({
    ...route,
    method: 'get',
    path: '/orgs/{org}/teams/search',
    operationId: 'teamSearch',
    handler: async (ctx) => {
      const page = pageOf(ctx);
      const includeDescription = goFormString(ctx.query, 'include_desc');
      const { teams, total } = await ctx.services.clients.teams.searchTeams({
        viewer: ctx.viewer,
        org: accountOf(ctx, 'org').name,
        keyword: goFormString(ctx.query, 'q').trim(),
        // Unset means yes.
        includeDescription: includeDescription === '' || ['1', 't', 'T', 'TRUE', 'true', 'True'].includes(includeDescription),
        page,
      });
      ctx.setLinkHeader(total, page.limit);
      ctx.setTotalCount(total);
      return json(200, { ok: true, data: teams.map((team) => toApiTeam(team, rootUrl(ctx))) });
    },
  });

  api.route({
    ...route,
    method: 'get',
    path: '/teams/{id}',
    operationId: 'orgGetTeam',
    handler: async (ctx) => {
      return json(200, toApiTeam(await teamOf(ctx), rootUrl(ctx)));
    },
  });

  api.route({
    ...route,
    method: 'patch',
    path: '/teams/{id}',
    operationId: 'orgEditTeam',
    body: EditTeamOption,
    handler: async (ctx) => {
      const { body } = ctx;
      const { team } = await ctx.services.clients.teams.updateTeam({
        actor: ctx.viewer,
        id: await teamIdFor(ctx),
        // Gitea renames only for a non-empty name.
        name: body.name === '' ? undefined : body.name,
        description: body.description,
        permission: body.permission,
        units: body.units,
        unitsMap: body.units_map,
        includesAllRepositories: body.includes_all_repositories,
        canCreateOrgRepo: body.can_create_org_repo,
      });
      if (team === undefined) throw new Error('UpdateTeam answered without a team');
      return json(200, toApiTeam(team, rootUrl(ctx)));
    },
  });

  api.route({
    ...route,
    method: 'delete',
    path: '/teams/{id}',
    operationId: 'orgDeleteTeam',
    handler: async (ctx) => {
      await ctx.services.clients.teams.deleteTeam({ actor: ctx.viewer, id: await teamIdFor(ctx) });
      return noContent();
    },
  });

  api.route({
    ...route,
    method: 'get',
    path: '/teams/{id}/members',
    operationId: 'orgListTeamMembers',
    handler: async (ctx) => {
      const { users, total } = await ctx.services.clients.teams.listTeamMembers({
        viewer: ctx.viewer,
        teamId: await teamIdFor(ctx),
        page: pageOf(ctx),
        publicUsersOnly: isPublicOnly(ctx.caller),
      });
      ctx.setTotalCount(total);
      return json(200, await toApiUsersWithCounts(ctx, users));
    },
  });

  api.route({
    ...route,
    method: 'get',
    path: '/teams/{id}/members/{username}',
    operationId: 'orgListTeamMember',
    handler: async (ctx) => {
      const { user } = await ctx.services.clients.teams.getTeamMember({ viewer: ctx.viewer, teamId: await teamIdFor(ctx), username: accountOf(ctx, 'username').name });
      if (user === undefined) throw new Error('GetTeamMember answered without a user');
      return json(200, toApiUser(user, { rootUrl: rootUrl(ctx) }));
    },
  });

  api.route({
    ...route,
    method: 'put',
    path: '/teams/{id}/members/{username}',
    operationId: 'orgAddTeamMember',
    handler: async (ctx) => {
      await ctx.services.clients.teams.addTeamMember({ actor: ctx.viewer, teamId: await teamIdFor(ctx), username: accountOf(ctx, 'username').name });
      return noContent();
    },
  });

  api.route({
    ...route,
    method: 'delete',
    path: '/teams/{id}/members/{username}',
    operationId: 'orgRemoveTeamMember',
    handler: async (ctx) => {
      await ctx.services.clients.teams.removeTeamMember({ actor: ctx.viewer, teamId: await teamIdFor(ctx), username: accountOf(ctx, 'username').name });
      return noContent();
    },
  });

  api.route({
    ...route,
    method: 'get',
    path: '/teams/{id}/repos',
    operationId: 'orgListTeamRepos',
    handler: async (ctx) => {
      const team = await teamOf(ctx);
      const { repositories, total } = await ctx.services.clients.collaborators.listTeamRepositories({
        viewer: ctx.viewer,
        teamId: team.id,
        page: pageOf(ctx),
        publicOnly: isPublicOnly(ctx.caller),
      });
      ctx.setTotalCount(total);
      return json(200, await toApiRepositories(ctx.services, ctx.viewer, repositories));
    },
  });

  api.route({
    ...route,
    method: 'get',
    path: '/teams/{id}/repos/{org}/{repo}',
    operationId: 'orgListTeamRepo',
    handler: async (ctx) => {
      const team = await teamOf(ctx);
      const found = await teamOrgRepo(ctx, team);
      // NOT_FOUND when the team is not linked to the repository.
      await ctx.services.clients.collaborators
        .getRepoTeam({ viewer: ctx.viewer, repoId: found.repository.id, team: team.name })
        .catch(notFoundAsGitea);
      const [repository] = await toApiRepositories(ctx.services, ctx.viewer, [found]);
      return json(200, repository);
    },
  });

  api.route({
    ...route,
    method: 'put',
    path: '/teams/{id}/repos/{org}/{repo}',
    operationId: 'orgAddTeamRepository',
    handler: async (ctx) => {
      const team = await teamOf(ctx);
      const found = await adminTeamOrgRepo(ctx, team);
      const change = ctx.services.clients.collaborators.addRepoTeam({ actor: ctx.viewer, repoId: found.repository.id, team: team.name });
      await idempotent(change, 'team_already_added');
      return noContent();
    },
  });

  api.route({
    ...route,
    method: 'delete',
    path: '/teams/{id}/repos/{org}/{repo}',
    operationId: 'orgRemoveTeamRepository',
    handler: async (ctx) => {
      const team = await teamOf(ctx);
      const found = await adminTeamOrgRepo(ctx, team);
      const change = ctx.services.clients.collaborators.removeRepoTeam({ actor: ctx.viewer, repoId: found.repository.id, team: team.name });
      await idempotent(change, 'team_not_added');
      return noContent();
    },
  });
}
