/**
 * Teams (routers/api/v1/org/team.go): an organization's teams and their search, one team, its members and its
 * repositories. accounts decides who may see and change what; a team repository is looked up by name in the
 * team's organization (Gitea ignores the path's `{org}` there).
 */
import { Code } from '@cairn/rpc';
import { HttpError, goFormString } from '@cairn/http';
import type { ApiRegistry } from '../../api/registry';
import { json, noContent, type ApiContext } from '../../api/types';
import { toApiTeam } from '../../convert/org';
import { toApiUser } from '../../convert/user';
import { CreateTeamOption, EditTeamOption } from './options';
import { accountOf, pageOf, teamIdOf } from './params';

const TEAM_ERRORS = {
  // A taken team name is 422 in Gitea; a non-admin team without units its 500 with this message.
  codes: { [Code.ALREADY_EXISTS]: 422 },
  reasons: {
    team_units_empty: (error: Error) => new HttpError(500, error.message, { cause: error }),
    team_member_not_found: () => HttpError.notFound(),
    repo_not_found: () => HttpError.notFound(),
  },
};

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
      const { team } = await ctx.services.clients.teams.getTeam({ viewer: ctx.viewer, id: teamIdOf(ctx) });
      if (team === undefined) throw new Error('GetTeam answered without a team');
      return json(200, toApiTeam(team, rootUrl(ctx)));
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
        id: teamIdOf(ctx),
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
      await ctx.services.clients.teams.deleteTeam({ actor: ctx.viewer, id: teamIdOf(ctx) });
      return noContent();
    },
  });

  api.route({
    ...route,
    method: 'get',
    path: '/teams/{id}/members',
    operationId: 'orgListTeamMembers',
    handler: async (ctx) => {
      const { users, total } = await ctx.services.clients.teams.listTeamMembers({ viewer: ctx.viewer, teamId: teamIdOf(ctx), page: pageOf(ctx) });
      ctx.setTotalCount(total);
      return json(200, users.map((user) => toApiUser(user, { rootUrl: rootUrl(ctx) })));
    },
  });

  api.route({
    ...route,
    method: 'get',
    path: '/teams/{id}/members/{username}',
    operationId: 'orgListTeamMember',
    handler: async (ctx) => {
      const { user } = await ctx.services.clients.teams.getTeamMember({ viewer: ctx.viewer, teamId: teamIdOf(ctx), username: accountOf(ctx, 'username').name });
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
      await ctx.services.clients.teams.addTeamMember({ actor: ctx.viewer, teamId: teamIdOf(ctx), username: accountOf(ctx, 'username').name });
      return noContent();
    },
  });

  api.route({
    ...route,
    method: 'delete',
    path: '/teams/{id}/members/{username}',
    operationId: 'orgRemoveTeamMember',
    handler: async (ctx) => {
      await ctx.services.clients.teams.removeTeamMember({ actor: ctx.viewer, teamId: teamIdOf(ctx), username: accountOf(ctx, 'username').name });
      return noContent();
    },
  });

  api.route({
    ...route,
    method: 'get',
    path: '/teams/{id}/repos',
    operationId: 'orgListTeamRepos',
    handler: async (ctx) => {
      const { total } = await ctx.services.clients.teams.listTeamRepos({ viewer: ctx.viewer, teamId: teamIdOf(ctx), page: pageOf(ctx) });
      ctx.setTotalCount(total);
      // Repositories come from the repos service, which does not exist yet: no team has any.
      return json(200, []);
    },
  });

  api.route({
    ...route,
    method: 'get',
    path: '/teams/{id}/repos/{org}/{repo}',
    operationId: 'orgListTeamRepo',
    handler: async (ctx) => {
      await ctx.services.clients.teams.getTeamRepo({ viewer: ctx.viewer, teamId: teamIdOf(ctx), repo: ctx.params.repo ?? '' });
      // GetTeamRepo finds no repository until the repos service exists (see accounts' repos/repo-directory.ts).
      throw HttpError.notFound();
    },
  });

  api.route({
    ...route,
    method: 'put',
    path: '/teams/{id}/repos/{org}/{repo}',
    operationId: 'orgAddTeamRepository',
    handler: async (ctx) => {
      await ctx.services.clients.teams.addTeamRepo({ actor: ctx.viewer, teamId: teamIdOf(ctx), repo: ctx.params.repo ?? '' });
      return noContent();
    },
  });

  api.route({
    ...route,
    method: 'delete',
    path: '/teams/{id}/repos/{org}/{repo}',
    operationId: 'orgRemoveTeamRepository',
    handler: async (ctx) => {
      await ctx.services.clients.teams.removeTeamRepo({ actor: ctx.viewer, teamId: teamIdOf(ctx), repo: ctx.params.repo ?? '' });
      return noContent();
    },
  });
}
