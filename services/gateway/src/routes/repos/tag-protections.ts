/**
 * Protected tag rules (routers/api/v1/repo/tag.go ListTagProtection … DeleteTagProtection; repository admins with
 * a token): list, get, create, edit and delete. repos stores the rules, checks their patterns and resolves the
 * names on their allow lists; an edit changes only the fields the body gives (Gitea's pointer fields).
 */
import { HttpError, go, goStruct } from '@cairn/http';
import { TagProtection } from '@cairn/proto/cairn/repos/v1/tag_protections_service';
import { Code } from '@cairn/rpc';
import { toApiTagProtection } from '@cairn/gitea-json';
import type { ApiRegistry } from '../../api/registry';
import { pathInt64 } from '../../api/path-int';
import { type ApiContext, json, noContent, repoOf } from '../../api/types';
import { answering } from './git-context';

const RULE_EXISTS_MESSAGE = 'Tag protection already exist';

/** A rule the repository does not have is Gitea's bare `APIErrorNotFound()`. */
const RULE_NOT_FOUND = { [Code.NOT_FOUND]: () => HttpError.notFound() };

/** Gitea's `CreateTagProtectionOption`. */
export const CreateTagProtectionOption = goStruct('CreateTagProtectionOption', {
  name_pattern: go.string('NamePattern'),
  whitelist_usernames: go.stringSlice('WhitelistUsernames'),
  whitelist_teams: go.stringSlice('WhitelistTeams'),
});

/** Gitea's `EditTagProtectionOption`: absent (nil) leaves the field as it is. */
export const EditTagProtectionOption = goStruct('EditTagProtectionOption', {
  name_pattern: go.stringPtr('NamePattern'),
  whitelist_usernames: go.stringSlicePtr('WhitelistUsernames'),
  whitelist_teams: go.stringSlicePtr('WhitelistTeams'),
});

function idOf<B>(ctx: ApiContext<B>): number {
  return pathInt64(ctx.params.id);
}

export function registerTagProtectionRoutes(api: ApiRegistry): void {
  const route = { scope: 'repository', auth: 'required', repo: { mode: 'admin' } } as const;
  const changing = { ...route, repo: { mode: 'admin', archived: 'refuse' } } as const;

  api.route({
    ...route,
    method: 'get',
    path: '/repos/{owner}/{repo}/tag_protections',
    operationId: 'repoListTagProtection',
    handler: async (ctx) => {
      const { protections } = await ctx.services.clients.tagProtections.listTagProtections({ viewer: ctx.viewer, repoId: repoOf(ctx).repository.id });
      return json(200, protections.map(toApiTagProtection));
    },
  });

  api.route({
    ...changing,
    method: 'post',
    path: '/repos/{owner}/{repo}/tag_protections',
    operationId: 'repoCreateTagProtection',
    body: CreateTagProtectionOption,
    handler: async (ctx) => {
      const { body } = ctx;
      // Gitea's CreateTagProtection answers these two with 400 before anything else.
      if (body.name_pattern.trim() === '') throw HttpError.badRequest('name_pattern are empty');
      if (body.whitelist_usernames.length === 0 && body.whitelist_teams.length === 0) {
        throw HttpError.badRequest('both whitelist_usernames and whitelist_teams are empty');
      }
      const protection = TagProtection.fromPartial({
        namePattern: body.name_pattern,
        whitelistUsernames: body.whitelist_usernames,
        whitelistTeams: body.whitelist_teams,
      });
      const created = await answering(
        ctx.services.clients.tagProtections.createTagProtection({ actor: ctx.viewer, repoId: repoOf(ctx).repository.id, protection }),
        { [Code.ALREADY_EXISTS]: () => HttpError.forbidden(RULE_EXISTS_MESSAGE) },
      );
      if (created.protection === undefined) throw new Error('CreateTagProtection answered without the rule');
      return json(201, toApiTagProtection(created.protection));
    },
  });

  api.route({
    ...route,
    method: 'get',
    path: '/repos/{owner}/{repo}/tag_protections/{id}',
    operationId: 'repoGetTagProtection',
    handler: async (ctx) => {
      const { protection } = await answering(
        ctx.services.clients.tagProtections.getTagProtection({ viewer: ctx.viewer, repoId: repoOf(ctx).repository.id, id: idOf(ctx) }),
        RULE_NOT_FOUND,
      );
      if (protection === undefined) throw new Error('GetTagProtection answered without the rule');
      return json(200, toApiTagProtection(protection));
    },
  });

  api.route({
    ...changing,
    method: 'patch',
    path: '/repos/{owner}/{repo}/tag_protections/{id}',
    operationId: 'repoEditTagProtection',
    body: EditTagProtectionOption,
    handler: async (ctx) => {
      const { body } = ctx;
      const given = Object.entries(body).flatMap(([field, value]) => (value === undefined ? [] : [field]));
      const protection = TagProtection.fromPartial({
        namePattern: body.name_pattern,
        whitelistUsernames: body.whitelist_usernames,
        whitelistTeams: body.whitelist_teams,
      });
      const updated = await answering(
        ctx.services.clients.tagProtections.updateTagProtection({ actor: ctx.viewer, repoId: repoOf(ctx).repository.id, id: idOf(ctx), protection, fields: given }),
        // Gitea keeps no uniqueness on edit; a pattern another rule has is refused here, as a validation error.
        { ...RULE_NOT_FOUND, [Code.ALREADY_EXISTS]: (message) => HttpError.unprocessable(message) },
      );
      if (updated.protection === undefined) throw new Error('UpdateTagProtection answered without the rule');
      return json(200, toApiTagProtection(updated.protection));
    },
  });

  api.route({
    ...route,
    method: 'delete',
    path: '/repos/{owner}/{repo}/tag_protections/{id}',
    operationId: 'repoDeleteTagProtection',
    handler: async (ctx) => {
      await answering(
        ctx.services.clients.tagProtections.deleteTagProtection({ actor: ctx.viewer, repoId: repoOf(ctx).repository.id, id: idOf(ctx) }),
        RULE_NOT_FOUND,
      );
      return noContent();
    },
  });
}
