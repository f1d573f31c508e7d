/**
 * A repository's organization teams (routers/api/v1/repo/teams.go): list them, check one by name (case-
 * insensitive), link and unlink one (repository admins; only organization owners when the organization keeps
 * team access to itself). A repository of a user answers 405. repos keeps the links; the teams come from one
 * accounts batch.
 */
import { HttpError } from '@cairn/http';
import type { CairnError } from '@cairn/rpc';
import { type ApiTeam, toApiTeam } from '@cairn/gitea-json';
import type { ApiRegistry } from '../../api/registry';
import { type ApiContext, ORGANIZATION_TYPE, json, noContent, repoOf } from '../../api/types';

export const NOT_ORG_REPO_MESSAGE = 'repo is not owned by an organization';

/** Gitea's 405 for team routes on a repository a user owns (checked before the team is looked up). */
function requireOrgRepo<B>(ctx: ApiContext<B>): number {
  const { repository } = repoOf(ctx);
  if (repository.ownerType !== ORGANIZATION_TYPE) throw new HttpError(405, NOT_ORG_REPO_MESSAGE);
  return repository.id;
}

/** A team the organization does not have, or that has no access here, is 404 with accounts' or repos' message. */
const TEAM_ERRORS = {
  reasons: {
    not_org_repo: () => new HttpError(405, NOT_ORG_REPO_MESSAGE),
    team_not_found: (error: CairnError) => new HttpError(404, error.message),
  },
};

/** The teams behind `ids`, in that order: one BatchGetTeams. */
async function teamsInOrder<B>(ctx: ApiContext<B>, ids: readonly number[]): Promise<ApiTeam[]> {
  if (ids.length === 0) return [];
  const { teams } = await ctx.services.clients.teams.batchGetTeams({ viewer: ctx.viewer, ids: [...ids] });
  const byId = new Map(teams.map((team) => [team.id, team]));
  const rootUrl = ctx.services.config.server.rootUrl;
  return ids.flatMap((id) => {
    const team = byId.get(id);
    return team === undefined ? [] : [toApiTeam(team, rootUrl)];
  });
}

export function registerRepoTeamRoutes(api: ApiRegistry): void {
  api.route({
    method: 'get',
    path: '/repos/{owner}/{repo}/teams',
    operationId: 'repoListTeams',
    scope: 'repository',
    auth: 'required',
    repo: { mode: 'read' },
    errors: TEAM_ERRORS,
    handler: async (ctx) => {
      const { teamIds } = await ctx.services.clients.collaborators.listRepoTeams({ viewer: ctx.viewer, repoId: requireOrgRepo(ctx) });
      return json(200, await teamsInOrder(ctx, teamIds));
    },
  });

  api.route({
    method: 'get',
    path: '/repos/{owner}/{repo}/teams/{team}',
    operationId: 'repoCheckTeam',
    scope: 'repository',
    auth: 'required',
    repo: { mode: 'read' },
    errors: TEAM_ERRORS,
    handler: async (ctx) => {
      const { teamId } = await ctx.services.clients.collaborators.getRepoTeam({ viewer: ctx.viewer, repoId: requireOrgRepo(ctx), team: ctx.params.team ?? '' });
      const [team] = await teamsInOrder(ctx, [teamId]);
      if (team === undefined) throw HttpError.notFound();
      return json(200, team);
    },
  });

  api.route({
    method: 'put',
    path: '/repos/{owner}/{repo}/teams/{team}',
    operationId: 'repoAddTeam',
    scope: 'repository',
    auth: 'required',
    repo: { mode: 'admin' },
    errors: TEAM_ERRORS,
    handler: async (ctx) => {
      await ctx.services.clients.collaborators.addRepoTeam({ actor: ctx.viewer, repoId: requireOrgRepo(ctx), team: ctx.params.team ?? '' });
      return noContent();
    },
  });

  api.route({
    method: 'delete',
    path: '/repos/{owner}/{repo}/teams/{team}',
    operationId: 'repoDeleteTeam',
    scope: 'repository',
    auth: 'required',
    repo: { mode: 'admin' },
    errors: TEAM_ERRORS,
    handler: async (ctx) => {
      await ctx.services.clients.collaborators.removeRepoTeam({ actor: ctx.viewer, repoId: requireOrgRepo(ctx), team: ctx.params.team ?? '' });
      return noContent();
    },
  });
}
