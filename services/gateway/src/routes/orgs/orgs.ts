/**
 * Organizations (routers/api/v1/org/org.go, admin/org.go): create, read, edit, rename, delete, and the lists —
 * every organization, a user's, and the site administration's. accounts decides who may see and do what;
 * these handlers map the request onto one call and the answer onto Gitea's JSON.
 */
import { Code } from '@cairn/rpc';
import type { ListOrgsResponse } from '@cairn/proto/cairn/accounts/v1/orgs_service';
import { toApiOrganization, toApiOrganizationPermissions } from '@cairn/gitea-json';
import type { ApiRegistry } from '../../api/registry';
import { doerOf, json, noContent, type ApiContext, type ApiReply } from '../../api/types';
import { isPublicOnly } from '../../auth/caller';
import { CreateOrgOption, EditOrgOption, RenameOrgOption, type BodyOf } from './options';
import { accountOf, pageOf } from './params';

/** Gitea answers a taken name or e-mail, and a reserved or invalid name, with 422. */
const ORG_WRITE_ERRORS = { codes: { [Code.ALREADY_EXISTS]: 422 } };

/** A page of organizations with Gitea's paging headers. */
function orgPage<B>(ctx: ApiContext<B>, limit: number, page: ListOrgsResponse): ApiReply {
  ctx.setLinkHeader(page.total, limit);
  ctx.setTotalCount(page.total);
  return json(200, page.orgs.map((org) => toApiOrganization(org, ctx.services.config.server.rootUrl)));
}

async function createOrg<B>(ctx: ApiContext<B>, body: BodyOf<typeof CreateOrgOption>, ownerId: number): Promise<ApiReply> {
  const { org } = await ctx.services.clients.orgs.createOrg({
    actor: ctx.viewer,
    ownerId,
    name: body.username,
    fullName: body.full_name,
    email: body.email,
    description: body.description,
    website: body.website,
    location: body.location,
    visibility: body.visibility,
    repoAdminChangeTeamAccess: body.repo_admin_change_team_access,
  });
  if (org === undefined) throw new Error('CreateOrg answered without an organization');
  return json(201, toApiOrganization(org, ctx.services.config.server.rootUrl));
}

export function registerOrgRoutes(api: ApiRegistry): void {
  api.route({
    method: 'get',
    path: '/orgs',
    operationId: 'orgGetAll',
    scope: 'organization',
    auth: 'optional',
    handler: async (ctx) => {
      const page = pageOf(ctx);
      return orgPage(ctx, page.limit, await ctx.services.clients.orgs.listOrgs({ viewer: ctx.viewer, page, publicOnly: isPublicOnly(ctx.caller) }));
    },
  });

  api.route({
    method: 'post',
    path: '/orgs',
    operationId: 'orgCreate',
    scope: 'organization',
    auth: 'required',
    body: CreateOrgOption,
    errors: ORG_WRITE_ERRORS,
    handler: (ctx) => createOrg(ctx, ctx.body, doerOf(ctx).id),
  });

  api.route({
    method: 'get',
    path: '/orgs/{org}',
    operationId: 'orgGet',
    scope: 'organization',
    auth: 'optional',
    handler: async (ctx) => {
      const { org } = await ctx.services.clients.orgs.getOrg({ viewer: ctx.viewer, name: accountOf(ctx, 'org').name });
      if (org === undefined) throw new Error('GetOrg answered without an organization');
      return json(200, toApiOrganization(org, ctx.services.config.server.rootUrl));
    },
  });

  api.route({
    method: 'patch',
    path: '/orgs/{org}',
    operationId: 'orgEdit',
    scope: 'organization',
    auth: 'required',
    body: EditOrgOption,
    errors: ORG_WRITE_ERRORS,
    handler: async (ctx) => {
      const { body } = ctx;
      const { org } = await ctx.services.clients.orgs.updateOrg({
        actor: ctx.viewer,
        org: accountOf(ctx, 'org').name,
        fullName: body.full_name,
        email: body.email,
        description: body.description,
        website: body.website,
        location: body.location,
        visibility: body.visibility,
        repoAdminChangeTeamAccess: body.repo_admin_change_team_access,
      });
      if (org === undefined) throw new Error('UpdateOrg answered without an organization');
      return json(200, toApiOrganization(org, ctx.services.config.server.rootUrl));
    },
  });

  api.route({
    method: 'delete',
    path: '/orgs/{org}',
    operationId: 'orgDelete',
    scope: 'organization',
    auth: 'required',
    handler: async (ctx) => {
      await ctx.services.clients.orgs.deleteOrg({ actor: ctx.viewer, org: accountOf(ctx, 'org').name });
      return noContent();
    },
  });

  api.route({
    method: 'post',
    path: '/orgs/{org}/rename',
    operationId: 'renameOrg',
    scope: 'organization',
    auth: 'required',
    body: RenameOrgOption,
    errors: ORG_WRITE_ERRORS,
    handler: async (ctx) => {
      await ctx.services.clients.orgs.renameOrg({ actor: ctx.viewer, org: accountOf(ctx, 'org').name, newName: ctx.body.new_name });
      return noContent();
    },
  });

  api.route({
    method: 'get',
    path: '/user/orgs',
    operationId: 'orgListCurrentUserOrgs',
    scope: ['user', 'organization'],
    auth: 'required',
    handler: async (ctx) => {
      const page = pageOf(ctx);
      const answer = await ctx.services.clients.orgs.listUserOrgs({
        viewer: ctx.viewer,
        username: doerOf(ctx).login,
        page,
        publicOnly: isPublicOnly(ctx.caller),
      });
      return orgPage(ctx, page.limit, answer);
    },
  });

  api.route({
    method: 'get',
    path: '/users/{username}/orgs',
    operationId: 'orgListUserOrgs',
    scope: ['user', 'organization'],
    auth: 'required',
    handler: async (ctx) => {
      const page = pageOf(ctx);
      const answer = await ctx.services.clients.orgs.listUserOrgs({
        viewer: ctx.viewer,
        username: accountOf(ctx, 'username').name,
        page,
        publicOnly: isPublicOnly(ctx.caller),
      });
      return orgPage(ctx, page.limit, answer);
    },
  });

  api.route({
    method: 'get',
    path: '/users/{username}/orgs/{org}/permissions',
    operationId: 'orgGetUserPermissions',
    scope: ['user', 'organization'],
    auth: 'required',
    handler: async (ctx) => {
      const permissions = await ctx.services.clients.orgs.getOrgPermissions({
        viewer: ctx.viewer,
        username: accountOf(ctx, 'username').name,
        org: accountOf(ctx, 'org').name,
      });
      return json(200, toApiOrganizationPermissions(permissions));
    },
  });

  api.route({
    method: 'get',
    path: '/admin/orgs',
    operationId: 'adminGetAllOrgs',
    scope: 'admin',
    auth: 'admin',
    handler: async (ctx) => {
      const page = pageOf(ctx);
      return orgPage(ctx, page.limit, await ctx.services.clients.orgs.listOrgs({ viewer: ctx.viewer, page, publicOnly: isPublicOnly(ctx.caller) }));
    },
  });

  api.route({
    method: 'post',
    path: '/admin/users/{username}/orgs',
    operationId: 'adminCreateOrg',
    scope: 'admin',
    auth: 'admin',
    body: CreateOrgOption,
    errors: ORG_WRITE_ERRORS,
    handler: (ctx) => createOrg(ctx, ctx.body, accountOf(ctx, 'username').id),
  });
}
