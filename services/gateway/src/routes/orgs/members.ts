/**
 * Organization members (routers/api/v1/org/member.go): the member and public-member lists and checks,
 * removing a member, and showing or hiding one's membership. accounts decides what the caller may learn.
 */
import { HttpError } from '@cairn/http';
import { IsMemberResponse_Answer, type ListMembersRequest } from '@cairn/proto/cairn/accounts/v1/orgs_service';
import type { ApiRegistry } from '../../api/registry';
import { json, noContent, redirect, type ApiContext, type ApiReply } from '../../api/types';
import { isPublicOnly } from '../../auth/caller';
import { toApiUsersWithCounts } from '../../social/user-counts';
import { accountOf, pageOf } from './params';

async function listMembers<B>(ctx: ApiContext<B>, publicOnly: boolean): Promise<ApiReply> {
  const request: ListMembersRequest = {
    viewer: ctx.viewer,
    org: accountOf(ctx, 'org').name,
    publicOnly,
    page: pageOf(ctx),
    publicUsersOnly: isPublicOnly(ctx.caller),
  };
  const { users, total } = await ctx.services.clients.orgs.listMembers(request);
  // Gitea sets only X-Total-Count on member lists.
  ctx.setTotalCount(total);
  return json(200, await toApiUsersWithCounts(ctx, users));
}

/** Where Gitea sends a caller who may only ask about public membership. */
function publicMemberLocation<B>(ctx: ApiContext<B>, org: string, username: string): string {
  const subUrl = new URL(ctx.services.config.server.rootUrl).pathname.replace(/\/$/, '');
  return `${subUrl}/api/v1/orgs/${encodeURIComponent(org)}/public_members/${encodeURIComponent(username)}`;
}

async function checkMembership<B>(ctx: ApiContext<B>, publicOnly: boolean): Promise<ApiReply> {
  const org = accountOf(ctx, 'org');
  const { answer, username } = await ctx.services.clients.orgs.isMember({
    viewer: ctx.viewer,
    org: org.name,
    username: accountOf(ctx, 'username').name,
    publicOnly,
  });
  switch (answer) {
    case IsMemberResponse_Answer.ANSWER_MEMBER:
      return noContent();
    case IsMemberResponse_Answer.ANSWER_ASK_PUBLIC:
      return redirect(303, publicMemberLocation(ctx, org.name, username));
    default:
      throw HttpError.notFound();
  }
}

async function setPublic<B>(ctx: ApiContext<B>, isPublic: boolean): Promise<ApiReply> {
  await ctx.services.clients.orgs.setMemberPublic({
    actor: ctx.viewer,
    org: accountOf(ctx, 'org').name,
    username: accountOf(ctx, 'username').name,
    public: isPublic,
  });
  return noContent();
}

export function registerOrgMemberRoutes(api: ApiRegistry): void {
  const route = { scope: 'organization' } as const;

  api.route({ ...route, method: 'get', path: '/orgs/{org}/members', operationId: 'orgListMembers', auth: 'required', handler: (ctx) => listMembers(ctx, false) });

  api.route({
    ...route,
    method: 'get',
    path: '/orgs/{org}/members/{username}',
    operationId: 'orgIsMember',
    auth: 'required',
    handler: (ctx) => checkMembership(ctx, false),
  });

  api.route({
    ...route,
    method: 'delete',
    path: '/orgs/{org}/members/{username}',
    operationId: 'orgDeleteMember',
    auth: 'required',
    handler: async (ctx) => {
      await ctx.services.clients.orgs.removeMember({ actor: ctx.viewer, org: accountOf(ctx, 'org').name, username: accountOf(ctx, 'username').name });
      return noContent();
    },
  });

  api.route({
    ...route,
    method: 'get',
    path: '/orgs/{org}/public_members',
    operationId: 'orgListPublicMembers',
    auth: 'optional',
    handler: (ctx) => listMembers(ctx, true),
  });

  api.route({
    ...route,
    method: 'get',
    path: '/orgs/{org}/public_members/{username}',
    operationId: 'orgIsPublicMember',
    auth: 'optional',
    handler: (ctx) => checkMembership(ctx, true),
  });

  api.route({
    ...route,
    method: 'put',
    path: '/orgs/{org}/public_members/{username}',
    operationId: 'orgPublicizeMember',
    auth: 'required',
    handler: (ctx) => setPublic(ctx, true),
  });

  api.route({
    ...route,
    method: 'delete',
    path: '/orgs/{org}/public_members/{username}',
    operationId: 'orgConcealMember',
    auth: 'required',
    handler: (ctx) => setPublic(ctx, false),
  });
}
