/**
 * Tags (routers/api/v1/repo/tag.go): list (newest first, X-Total-Count), get, create (annotated when a message is
 * given, tagged by the doer; 201 although Gitea's description says 200) and delete (409 while a release uses the
 * tag). A tag name may hold `/`. Creating or deleting a protected tag the doer may not control is refused with 422
 * (Gitea's ErrProtectedTagName answers), asked of repos before git-storage is touched.
 */
import { HttpError, go, goStruct } from '@cairn/http';
import { Code, isCairnError } from '@cairn/rpc';
import { UNIT_CODE, toApiTag } from '@cairn/gitea-json';
import type { ApiRegistry } from '../../api/registry';
import { type ApiContext, doerOf, json, noContent, repoOf } from '../../api/types';
import { pageOf } from '../orgs/params';
import { type GitRepoContext, READ_ERRORS, answering, doerSignature, gitRepoOf, pushOf } from './git-context';

/** Gitea's `CreateTagOption`. */
export const CreateTagOption = goStruct('CreateTagOption', {
  tag_name: go.string('TagName', { required: true, gitRefName: true, maxSize: 255 }),
  message: go.string('Message'),
  target: go.string('Target'),
});

function tagParam<B>(ctx: ApiContext<B>): string {
  return ctx.params.tag ?? '';
}

/** Refuses with `message` (422) when a protection rule keeps the doer from controlling `name`. */
async function requireTagControl<B>(ctx: ApiContext<B>, name: string, message: string): Promise<void> {
  const { tags } = await ctx.services.clients.tagProtections.checkTagControl({ actor: ctx.viewer, repoId: repoOf(ctx).repository.id, tagNames: [name] });
  if (tags.some((tag) => !tag.allowed)) throw HttpError.unprocessable(message);
}

/**
 * Whether a release (a draft too) uses the tag, as Gitea's DeleteTag asks before deleting one. repos answers for
 * the doer: one who may not read the releases unit learns nothing, and a release whose tag goes anyway becomes a
 * draft (the push consumer, as Gitea's PushUpdateDeleteTag).
 */
async function hasRelease<B>(ctx: ApiContext<B>, repo: GitRepoContext, tagName: string): Promise<boolean> {
  try {
    await ctx.services.clients.releases.getReleaseByTag({ viewer: ctx.viewer, repoId: repo.repository.id, tagName });
    return true;
  } catch (error) {
    if (isCairnError(error) && error.code === Code.NOT_FOUND) return false;
    throw error;
  }
}

export function registerTagRoutes(api: ApiRegistry): void {
  const reader = { scope: 'repository', auth: 'optional', repo: { unit: UNIT_CODE, mode: 'read' }, errors: READ_ERRORS } as const;
  const writer = { scope: 'repository', auth: 'required', repo: { unit: UNIT_CODE, mode: 'write', archived: 'refuse' } } as const;

  api.route({
    ...reader,
    method: 'get',
    path: '/repos/{owner}/{repo}/tags',
    operationId: 'repoListTags',
    handler: async (ctx) => {
      const repo = gitRepoOf(ctx);
      const page = pageOf(ctx);
      const { tags, total } = await ctx.services.clients.refs.listTags({ repository: repo.git, page: page.page, limit: page.limit });
      ctx.setTotalCount(total);
      return json(200, tags.map((tag) => toApiTag(tag, repo.links)));
    },
  });

  api.route({
    ...reader,
    method: 'get',
    path: '/repos/{owner}/{repo}/tags/{tag}',
    pathWildcards: ['tag'],
    operationId: 'repoGetTag',
    handler: async (ctx) => {
      const repo = gitRepoOf(ctx);
      const name = tagParam(ctx);
      const { tag } = await answering(ctx.services.clients.refs.getTag({ repository: repo.git, name }), {
        [Code.NOT_FOUND]: () => HttpError.notFound(`tag doesn't exist: ${name}`),
      });
      if (tag === undefined) throw new Error('GetTag answered without the tag');
      return json(200, toApiTag(tag, repo.links));
    },
  });

  api.route({
    ...writer,
    method: 'post',
    path: '/repos/{owner}/{repo}/tags',
    operationId: 'repoCreateTag',
    body: CreateTagOption,
    handler: async (ctx) => {
      const repo = gitRepoOf(ctx);
      const { body } = ctx;
      await requireTagControl(ctx, body.tag_name, 'user not allowed to create protected tag');
      const exists = () => new HttpError(409, `tag already exists [name: ${body.tag_name}]`);
      // A draft release holds its tag name before the tag exists (Gitea's CreateNewTag: IsReleaseExist).
      if (await hasRelease(ctx, repo, body.tag_name)) throw exists();
      const { tag } = await answering(
        ctx.services.clients.refs.createTag({
          repository: repo.git,
          name: body.tag_name,
          target: body.target || repo.repository.defaultBranch,
          message: body.message,
          tagger: doerSignature(doerOf(ctx), ctx.services.config),
          push: pushOf(ctx),
        }),
        {
          [Code.NOT_FOUND]: (message) => new HttpError(404, `target not found: ${message}`),
          [Code.ALREADY_EXISTS]: exists,
        },
      );
      if (tag === undefined) throw new Error('CreateTag answered without the tag');
      return json(201, toApiTag(tag, repo.links));
    },
  });

  api.route({
    ...writer,
    method: 'delete',
    path: '/repos/{owner}/{repo}/tags/{tag}',
    pathWildcards: ['tag'],
    operationId: 'repoDeleteTag',
    handler: async (ctx) => {
      const repo = gitRepoOf(ctx);
      const name = tagParam(ctx);
      await requireTagControl(ctx, name, 'user not allowed to delete protected tag');
      if (await hasRelease(ctx, repo, name)) throw new HttpError(409, 'a tag attached to a release cannot be deleted directly');
      await answering(ctx.services.clients.refs.deleteTag({ repository: repo.git, name, push: pushOf(ctx) }), {
        [Code.NOT_FOUND]: () => HttpError.notFound(),
      });
      return noContent();
    },
  });
}
