/**
 * Site administration of users (routers/api/v1/admin/user.go): list, create, edit, rename, delete. Site admins
 * only; a token needs the admin scope.
 */
import { Code } from '@cairn/rpc';
import { HttpError, go, goFormBool, goFormInt, goFormOptionalBool, goFormString, goStruct } from '@cairn/http';
import type { UpdateUserRequest } from '@cairn/proto/cairn/accounts/v1/accounts_service';
import { toApiUser } from '@cairn/gitea-json';
import type { ApiRegistry } from '../../api/registry';
import { contextUserOf, doerOf, json, noContent } from '../../api/types';
import { isPublicOnly } from '../../auth/caller';
import { toApiUsersWithCounts } from '../../social/user-counts';

const VISIBILITIES = ['', 'public', 'limited', 'private'];

/** Gitea's `api.CreateUserOption`, fields in its order. */
export const CreateUserOption = goStruct('CreateUserOption', {
  source_id: go.int64('SourceID'),
  login_name: go.string('LoginName'),
  username: go.string('Username', { required: true, maxSize: 40 }),
  full_name: go.string('FullName', { maxSize: 100 }),
  email: go.string('Email', { required: true, email: true, maxSize: 254 }),
  password: go.string('Password', { maxSize: 255 }),
  must_change_password: go.boolPtr('MustChangePassword'),
  send_notify: go.bool('SendNotify'),
  restricted: go.boolPtr('Restricted'),
  visibility: go.string('Visibility', { in: VISIBILITIES }),
  created_at: go.timePtr('Created'),
});

/**
 * Gitea's `api.EditUserOption`. Its description requires `source_id` and `login_name`, but Gitea takes a
 * body without them, and so does Cairn: `login_name` changes only when it is sent.
 */
export const EditUserOption = goStruct('EditUserOption', {
  source_id: go.int64('SourceID'),
  login_name: go.stringPtr('LoginName'),
  email: go.stringPtr('Email', { maxSize: 254 }),
  full_name: go.stringPtr('FullName', { maxSize: 100 }),
  password: go.string('Password', { maxSize: 255 }),
  must_change_password: go.boolPtr('MustChangePassword'),
  website: go.stringPtr('Website', { url: true, maxSize: 255 }),
  location: go.stringPtr('Location', { maxSize: 50 }),
  description: go.stringPtr('Description', { maxSize: 255 }),
  active: go.boolPtr('Active'),
  admin: go.boolPtr('Admin'),
  allow_git_hook: go.boolPtr('AllowGitHook'),
  allow_import_local: go.boolPtr('AllowImportLocal'),
  max_repo_creation: go.int64Ptr('MaxRepoCreation'),
  prohibit_login: go.boolPtr('ProhibitLogin'),
  allow_create_organization: go.boolPtr('AllowCreateOrganization'),
  restricted: go.boolPtr('Restricted'),
  visibility: go.string('Visibility', { in: VISIBILITIES }),
});

/** Gitea's `api.RenameUserOption`: the name's rules are checked by accounts, as Gitea's RenameUser does. */
export const RenameUserOption = goStruct('RenameUserOption', {
  new_username: go.string('NewName', { required: true }),
});

/** Cairn has no external login sources: any source id names one that does not exist (Gitea: 422). */
function checkLoginSource(sourceId: number): void {
  if (sourceId !== 0) throw HttpError.unprocessable(`login source does not exist [id: ${sourceId}]`);
}

const adminRoute = { scope: 'admin', auth: 'admin' } as const;

export function registerAdminUserRoutes(api: ApiRegistry): void {
  api.route({
    ...adminRoute,
    method: 'get',
    path: '/admin/users',
    operationId: 'adminSearchUsers',
    handler: async (ctx) => {
      const { query } = ctx;
      const { page, limit } = ctx.listOptions();
      const { users, total } = await ctx.services.clients.users.listUsers({
        viewer: ctx.viewer,
        keyword: goFormString(query, 'q').trim(),
        visibility: goFormString(query, 'visibility'),
        isActive: goFormOptionalBool(query, 'is_active'),
        isAdmin: goFormOptionalBool(query, 'is_admin'),
        isRestricted: goFormOptionalBool(query, 'is_restricted'),
        isProhibitLogin: goFormOptionalBool(query, 'is_prohibit_login'),
        isTwoFactorEnabled: goFormOptionalBool(query, 'is_2fa_enabled'),
        sourceId: goFormInt(query, 'source_id'),
        loginName: goFormString(query, 'login_name').trim(),
        sort: goFormString(query, 'sort'),
        publicOnly: isPublicOnly(ctx.caller),
        order: goFormString(query, 'order'),
        page: { page, limit },
      });
      ctx.setLinkHeader(total, limit);
      ctx.setTotalCount(total);
      return json(200, await toApiUsersWithCounts(ctx, users));
    },
  });

  api.route({
    ...adminRoute,
    method: 'post',
    path: '/admin/users',
    operationId: 'adminCreateUser',
    body: CreateUserOption,
    // Taken name or e-mail, reserved or invalid name, invalid e-mail: 422; a short password: 400.
    errors: { codes: { [Code.ALREADY_EXISTS]: 422 }, reasons: { password_too_short: 400 } },
    handler: async (ctx) => {
      const { body } = ctx;
      checkLoginSource(body.source_id);
      const { user } = await ctx.services.clients.users.createUser({
        username: body.username,
        email: body.email,
        password: body.password,
        fullName: body.full_name,
        loginName: body.login_name,
        sourceId: body.source_id,
        // An account an admin creates must change its password at first sign-in unless told otherwise.
        mustChangePassword: body.must_change_password ?? true,
        restricted: body.restricted ?? ctx.services.config.service.defaultUserIsRestricted,
        visibility: body.visibility,
        isAdmin: false,
        actorId: doerOf(ctx).id,
        createdAt: body.created_at,
      });
      if (user === undefined) throw new Error('CreateUser answered without a user');
      return json(201, toApiUser(user, { rootUrl: ctx.services.config.server.rootUrl }));
    },
  });

  api.route({
    ...adminRoute,
    method: 'patch',
    path: '/admin/users/{username}',
    operationId: 'adminEditUser',
    contextUser: 'visible',
    body: EditUserOption,
    // Gitea checks the password and the e-mail first, answering 400 for each; the rest is 422.
    errors: { codes: { [Code.ALREADY_EXISTS]: 400 }, reasons: { password_too_short: 400, email_invalid: 400, email_used: 400 } },
    handler: async (ctx) => {
      const { body } = ctx;
      const user = contextUserOf(ctx);
      checkLoginSource(body.source_id);
      const request: UpdateUserRequest = {
        id: user.id,
        actorId: doerOf(ctx).id,
        loginName: body.login_name,
        password: body.password === '' ? undefined : body.password,
        mustChangePassword: body.must_change_password,
        email: body.email,
        fullName: body.full_name,
        website: body.website,
        location: body.location,
        description: body.description,
        active: body.active,
        isAdmin: body.admin,
        allowGitHook: body.allow_git_hook,
        allowImportLocal: body.allow_import_local,
        maxRepoCreation: body.max_repo_creation,
        prohibitLogin: body.prohibit_login,
        allowCreateOrganization: body.allow_create_organization,
        restricted: body.restricted,
        visibility: body.visibility === '' ? undefined : body.visibility,
      };
      const { user: updated } = await ctx.services.clients.users.updateUser(request);
      if (updated === undefined) throw new Error('UpdateUser answered without a user');
      ctx.services.tokenCache.forgetUser(user.id);
      return json(200, toApiUser(updated, { rootUrl: ctx.services.config.server.rootUrl }));
    },
  });

  api.route({
    ...adminRoute,
    method: 'post',
    path: '/admin/users/{username}/rename',
    operationId: 'adminRenameUser',
    contextUser: 'visible',
    body: RenameUserOption,
    // A taken name, like an unusable one or an organization, is 422.
    errors: { codes: { [Code.ALREADY_EXISTS]: 422 } },
    handler: async (ctx) => {
      const user = contextUserOf(ctx);
      await ctx.services.clients.users.renameUser({ id: user.id, newName: ctx.body.new_username, actorId: doerOf(ctx).id });
      // Cached sign-ins carry the old name: this instance forgets them now, the others on cairn.user.renamed.
      ctx.services.tokenCache.forgetUser(user.id);
      return noContent();
    },
  });

  api.route({
    ...adminRoute,
    method: 'delete',
    path: '/admin/users/{username}',
    operationId: 'adminDeleteUser',
    contextUser: 'visible',
    handler: async (ctx) => {
      const user = contextUserOf(ctx);
      const doer = doerOf(ctx);
      if (user.id === doer.id) throw HttpError.unprocessable('you cannot delete yourself');
      await ctx.services.clients.users.deleteUser({ id: user.id, actorId: doer.id, purge: goFormBool(ctx.query, 'purge') });
      ctx.services.tokenCache.forgetUser(user.id);
      return noContent();
    },
  });
}
