/**
 * Releases (routers/api/v1/repo/release.go, release_tags.go): list (newest first, `draft` / `pre-release` filters,
 * Link and X-Total-Count), latest, get / edit / delete by id, get / delete by tag, create. repos decides who sees
 * what (drafts only for writers) and creates a published release's tag; the gateway validates the options and
 * shapes the answers. A tag name may hold `/`.
 */
import { type CairnErrorMapping, HttpError, go, goFormOptionalBool, goStruct } from '@cairn/http';
import type { Release } from '@cairn/proto/cairn/repos/v1/releases_service';
import { UNIT_RELEASES, toApiRelease, toApiReleases } from '@cairn/gitea-json';
import { pathInt64 } from '../../api/path-int';
import type { ApiRegistry } from '../../api/registry';
import { type ApiContext, type ApiReply, doerOf, json, noContent, repoOf } from '../../api/types';
import { pageOf } from '../orgs/params';
import { doerSignature, gitRepoOf } from './git-context';

/** Gitea's `CreateReleaseOption`; the tag must be a name git accepts (as for POST /tags). */
export const CreateReleaseOption = goStruct('CreateReleaseOption', {
  tag_name: go.string('TagName', { required: true, gitRefName: true, maxSize: 255 }),
  target_commitish: go.string('Target'),
  name: go.string('Title'),
  body: go.string('Note'),
  draft: go.bool('IsDraft'),
  prerelease: go.bool('IsPrerelease'),
  tag_message: go.string('TagMessage'),
});

/** Gitea's `EditReleaseOption`: empty strings and absent flags leave a field as it is; a new tag must be a name git accepts. */
export const EditReleaseOption = goStruct('EditReleaseOption', {
  tag_name: go.string('TagName', { gitRefName: true, maxSize: 255 }),
  target_commitish: go.string('Target'),
  name: go.string('Title'),
  body: go.string('Note'),
  draft: go.boolPtr('IsDraft'),
  prerelease: go.boolPtr('IsPrerelease'),
});

function repoIdOf<B>(ctx: ApiContext<B>): number {
  return repoOf(ctx).repository.id;
}

function releaseIdOf<B>(ctx: ApiContext<B>): number {
  return pathInt64(ctx.params.id);
}

function tagOf<B>(ctx: ApiContext<B>): string {
  return ctx.params.tag ?? '';
}

async function answer<B>(ctx: ApiContext<B>, status: number, release: Release | undefined): Promise<ApiReply> {
  if (release === undefined) throw new Error('repos answered without the release');
  return json(status, await toApiRelease(ctx.services, release, gitRepoOf(ctx).links));
}

/**
 * repos' answers in Gitea's words: an unknown release is Gitea's bare 404, an unknown target names itself
 * (`target "x" not found: …`, as Gitea's CreateRelease answers it).
 */
const RELEASE_ERRORS: CairnErrorMapping = {
  reasons: {
    release_not_found: () => HttpError.notFound(),
    target_not_found: (error) => new HttpError(404, error.message),
  },
};

export function registerReleaseRoutes(api: ApiRegistry): void {
  const reader = { scope: 'repository', auth: 'optional', repo: { unit: UNIT_RELEASES, mode: 'read' }, errors: RELEASE_ERRORS } as const;
  const writer = {
    scope: 'repository',
    auth: 'required',
    repo: { unit: UNIT_RELEASES, mode: 'write', archived: 'refuse' },
    errors: RELEASE_ERRORS,
  } as const;

  api.route({
    ...reader,
    method: 'get',
    path: '/repos/{owner}/{repo}/releases',
    operationId: 'repoListReleases',
    handler: async (ctx) => {
      const repo = gitRepoOf(ctx);
      const page = pageOf(ctx);
      const { releases, total } = await ctx.services.clients.releases.listReleases({
        viewer: ctx.viewer,
        repoId: repo.repository.id,
        draft: goFormOptionalBool(ctx.query, 'draft'),
        prerelease: goFormOptionalBool(ctx.query, 'pre-release'),
        page,
      });
      ctx.setLinkHeader(total, page.limit);
      ctx.setTotalCount(total);
      return json(200, await toApiReleases(ctx.services, releases, repo.links));
    },
  });

  api.route({
    ...writer,
    method: 'post',
    path: '/repos/{owner}/{repo}/releases',
    operationId: 'repoCreateRelease',
    body: CreateReleaseOption,
    handler: async (ctx) => {
      const { body } = ctx;
      const { release } = await ctx.services.clients.releases.createRelease({
        actor: ctx.viewer,
        repoId: repoIdOf(ctx),
        tagName: body.tag_name,
        targetCommitish: body.target_commitish,
        name: body.name,
        body: body.body,
        draft: body.draft,
        prerelease: body.prerelease,
        tagMessage: body.tag_message,
        tagger: doerSignature(doerOf(ctx), ctx.services.config),
      });
      return answer(ctx, 201, release);
    },
  });

  // Before `/releases/{id}`: the router tries routes in the order they were registered.
  api.route({
    ...reader,
    method: 'get',
    path: '/repos/{owner}/{repo}/releases/latest',
    operationId: 'repoGetLatestRelease',
    handler: async (ctx) => {
      const { release } = await ctx.services.clients.releases.getLatestRelease({ viewer: ctx.viewer, repoId: repoIdOf(ctx) });
      return answer(ctx, 200, release);
    },
  });

  api.route({
    ...reader,
    method: 'get',
    path: '/repos/{owner}/{repo}/releases/{id}',
    operationId: 'repoGetRelease',
    handler: async (ctx) => {
      const { release } = await ctx.services.clients.releases.getRelease({ viewer: ctx.viewer, repoId: repoIdOf(ctx), id: releaseIdOf(ctx) });
      return answer(ctx, 200, release);
    },
  });

  api.route({
    ...writer,
    method: 'patch',
    path: '/repos/{owner}/{repo}/releases/{id}',
    operationId: 'repoEditRelease',
    body: EditReleaseOption,
    handler: async (ctx) => {
      const { body } = ctx;
      const fields = [
        ...(['tag_name', 'target_commitish', 'name', 'body'] as const).filter((field) => body[field] !== ''),
        ...(['draft', 'prerelease'] as const).filter((field) => body[field] !== undefined),
      ];
      const { release } = await ctx.services.clients.releases.updateRelease({
        actor: ctx.viewer,
        repoId: repoIdOf(ctx),
        id: releaseIdOf(ctx),
        tagName: body.tag_name,
        targetCommitish: body.target_commitish,
        name: body.name,
        body: body.body,
        draft: body.draft ?? false,
        prerelease: body.prerelease ?? false,
        fields,
        tagger: doerSignature(doerOf(ctx), ctx.services.config),
      });
      return answer(ctx, 200, release);
    },
  });

  api.route({
    ...writer,
    method: 'delete',
    path: '/repos/{owner}/{repo}/releases/{id}',
    operationId: 'repoDeleteRelease',
    handler: async (ctx) => {
      await ctx.services.clients.releases.deleteRelease({ actor: ctx.viewer, repoId: repoIdOf(ctx), id: releaseIdOf(ctx), tagName: '' });
      return noContent();
    },
  });

  api.route({
    ...reader,
    method: 'get',
    path: '/repos/{owner}/{repo}/releases/tags/{tag}',
    pathWildcards: ['tag'],
    operationId: 'repoGetReleaseByTag',
    handler: async (ctx) => {
      const { release } = await ctx.services.clients.releases.getReleaseByTag({ viewer: ctx.viewer, repoId: repoIdOf(ctx), tagName: tagOf(ctx) });
      return answer(ctx, 200, release);
    },
  });

  api.route({
    ...writer,
    method: 'delete',
    path: '/repos/{owner}/{repo}/releases/tags/{tag}',
    pathWildcards: ['tag'],
    operationId: 'repoDeleteReleaseByTag',
    handler: async (ctx) => {
      await ctx.services.clients.releases.deleteRelease({ actor: ctx.viewer, repoId: repoIdOf(ctx), id: 0, tagName: tagOf(ctx) });
      return noContent();
    },
  });
}

